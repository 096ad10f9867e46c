package dev.tide.cluster;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import java.util.List;

/**
 * A protobuf message as JSON for people and scripts ({@code /api/status}, {@code tide ctl --json}):
 * field names in lowerCamelCase as {@code JsonFormat} writes them (so its parser reads this back), every
 * field present even at its default, and 64-bit integers as JSON numbers rather than the strings
 * proto3's JSON mapping uses (values stay exact up to 2^64; a JavaScript reader loses precision above 2^53).
 */
public final class ProtoJson {
  private ProtoJson() {}

  /** {@code m} as indented JSON. */
  public static String print(Message m) {
    StringBuilder b = new StringBuilder();
    message(b, m, "");
    return b.toString();
  }

  private static void message(StringBuilder b, Message m, String indent) {
    List<FieldDescriptor> fields = m.getDescriptorForType().getFields();
    if (fields.isEmpty()) {
      b.append("{}");
      return;
    }
    String inner = indent + "  ";
    b.append("{\n");
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      b.append(inner);
      string(b, f.getJsonName());
      b.append(": ");
      if (f.isMapField()) {
        map(b, m, f, inner);
      } else if (f.isRepeated()) {
        int n = m.getRepeatedFieldCount(f);
        if (n == 0) {
          b.append("[]");
        } else {
          b.append("[\n");
          for (int k = 0; k < n; k++) {
            b.append(inner).append("  ");
            value(b, f, m.getRepeatedField(f, k), inner + "  ");
            b.append(k + 1 < n ? ",\n" : "\n");
          }
          b.append(inner).append(']');
        }
      } else if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !m.hasField(f)) {
        b.append("null");
      } else {
        value(b, f, m.getField(f), inner);
      }
      b.append(i + 1 < fields.size() ? ",\n" : "\n");
    }
    b.append(indent).append('}');
  }

  private static void map(StringBuilder b, Message m, FieldDescriptor f, String indent) {
    int n = m.getRepeatedFieldCount(f);
    if (n == 0) {
      b.append("{}");
      return;
    }
    b.append("{\n");
    for (int k = 0; k < n; k++) {
      MapEntry<?, ?> e = (MapEntry<?, ?>) m.getRepeatedField(f, k);
      b.append(indent).append("  ");
      string(b, String.valueOf(e.getKey()));
      b.append(": ");
      value(b, f.getMessageType().findFieldByName("value"), e.getValue(), indent + "  ");
      b.append(k + 1 < n ? ",\n" : "\n");
    }
    b.append(indent).append('}');
  }

  private static void value(StringBuilder b, FieldDescriptor f, Object v, String indent) {
    switch (f.getJavaType()) {
      case MESSAGE -> message(b, (Message) v, indent);
      case STRING -> string(b, (String) v);
      case ENUM -> string(b, ((EnumValueDescriptor) v).getName());
      case BYTE_STRING -> string(b, java.util.Base64.getEncoder().encodeToString(((com.google.protobuf.ByteString) v).toByteArray()));
      case INT, LONG -> b.append(unsigned(f) ? (v instanceof Integer i ? Integer.toUnsignedString(i) : Long.toUnsignedString((Long) v)) : v);
      case FLOAT, DOUBLE -> {
        double d = ((Number) v).doubleValue();
        if (Double.isFinite(d)) {
          b.append(v);
        } else {
          string(b, String.valueOf(d));
        }
      }
      case BOOLEAN -> b.append(v);
    }
  }

  private static boolean unsigned(FieldDescriptor f) {
    return switch (f.getType()) {
      case UINT32, UINT64, FIXED32, FIXED64 -> true;
      default -> false;
    };
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
