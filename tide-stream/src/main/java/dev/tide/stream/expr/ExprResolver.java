package dev.tide.stream.expr;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.Call;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.Literal;
import dev.tide.stream.plan.PlanException;
import dev.tide.stream.plan.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Resolves names and checks types: {@link Ex} against a schema → typed protocol {@link Expr}. */
public final class ExprResolver {
  private static final Set<String> ARITH = Set.of("add", "sub", "mul", "div", "mod");
  private static final Set<String> COMPARE = Set.of("eq", "ne", "lt", "le", "gt", "ge");

  private ExprResolver() {}

  /** @param where names the node for error messages, e.g. "filter of node 3" */
  public static Expr resolve(Ex e, Schema input, String where) {
    if (e instanceof Ex.Col c) {
      int i = input.indexOf(c.name());
      if (i < 0) {
        throw new PlanException("unknown column '" + c.name() + "' in " + where + "; available columns: " + input.names());
      }
      return Expr.newBuilder().setInputRef(i).setType(Types.toProto(input.type(i))).build();
    }
    if (e instanceof Ex.Lit l) {
      checkLiteral(l, where);
      return Expr.newBuilder().setLiteral(literal(l.value(), l.type())).setType(Types.toProto(l.type())).build();
    }
    if (e instanceof Ex.Cast c) {
      Expr arg = resolve(c.arg(), input, where);
      DataType from = typeOf(arg);
      boolean ok = from == c.to() || (from.isNumeric() && c.to().isNumeric()) || c.to() == DataType.VARCHAR
          || (from == DataType.TIMESTAMP && c.to() == DataType.BIGINT) || (from == DataType.BIGINT && c.to() == DataType.TIMESTAMP);
      if (!ok) {
        throw new PlanException("type mismatch in " + where + ": cannot cast " + from.sqlName() + " to " + c.to().sqlName());
      }
      return call("cast", List.of(arg), c.to());
    }
    Ex.Fn f = (Ex.Fn) e;
    List<Expr> args = new ArrayList<>();
    for (Ex a : f.args()) {
      args.add(resolve(a, input, where));
    }
    String fn = f.name();
    if (ARITH.contains(fn)) {
      arity(fn, args, 2, where);
      DataType a = typeOf(args.get(0));
      DataType b = typeOf(args.get(1));
      if (!a.isNumeric() || !b.isNumeric()) {
        throw mismatch(fn, where, a, b, "numeric operands");
      }
      if (fn.equals("mod") && (a == DataType.DOUBLE || b == DataType.DOUBLE)) {
        throw mismatch(fn, where, a, b, "integer operands");
      }
      return call(fn, args, wider(a, b));
    }
    if (COMPARE.contains(fn)) {
      arity(fn, args, 2, where);
      DataType a = typeOf(args.get(0));
      DataType b = typeOf(args.get(1));
      if (!comparable(a, b)) {
        throw mismatch(fn, where, a, b, "comparable operands");
      }
      return call(fn, args, DataType.BOOLEAN);
    }
    switch (fn) {
      case "and", "or" -> {
        arity(fn, args, 2, where);
        for (Expr a : args) {
          if (typeOf(a) != DataType.BOOLEAN) {
            throw new PlanException("type mismatch in " + where + ": " + fn + " needs boolean operands, got " + typeOf(a).sqlName());
          }
        }
        return call(fn, args, DataType.BOOLEAN);
      }
      case "not" -> {
        arity(fn, args, 1, where);
        if (typeOf(args.get(0)) != DataType.BOOLEAN) {
          throw new PlanException("type mismatch in " + where + ": not needs a boolean operand, got " + typeOf(args.get(0)).sqlName());
        }
        return call(fn, args, DataType.BOOLEAN);
      }
      case "neg" -> {
        arity(fn, args, 1, where);
        if (!typeOf(args.get(0)).isNumeric()) {
          throw new PlanException("type mismatch in " + where + ": neg needs a numeric operand");
        }
        return call(fn, args, typeOf(args.get(0)));
      }
      case "is_null" -> {
        arity(fn, args, 1, where);
        return call(fn, args, DataType.BOOLEAN);
      }
      case "in" -> {
        if (args.size() < 2) {
          throw new PlanException("in needs a value and at least one candidate in " + where);
        }
        DataType a = typeOf(args.get(0));
        for (int i = 1; i < args.size(); i++) {
          if (!args.get(i).hasLiteral()) {
            throw new PlanException("in accepts only literal candidates in " + where);
          }
          if (!comparable(a, typeOf(args.get(i)))) {
            throw mismatch("in", where, a, typeOf(args.get(i)), "comparable operands");
          }
        }
        return call(fn, args, DataType.BOOLEAN);
      }
      case "case" -> {
        // when1, then1, when2, then2, ..., [else]; no else: null
        if (args.size() < 2) {
          throw new PlanException("case needs at least one WHEN ... THEN pair in " + where);
        }
        DataType out = null;
        for (int i = 0; i < args.size(); i++) {
          boolean isWhen = i % 2 == 0 && i + 1 < args.size();
          if (isWhen && typeOf(args.get(i)) != DataType.BOOLEAN) {
            throw new PlanException("type mismatch in " + where + ": a CASE condition is " + typeOf(args.get(i)).sqlName()
                + ", must be boolean");
          }
          if (!isWhen) {
            out = unify("case", out, typeOf(args.get(i)), where);
          }
        }
        return call(fn, args, out);
      }
      case "coalesce" -> {
        if (args.isEmpty()) {
          throw new PlanException("coalesce needs at least one argument in " + where);
        }
        DataType out = null;
        for (Expr a : args) {
          out = unify("coalesce", out, typeOf(a), where);
        }
        return call(fn, args, out);
      }
      case "lower", "upper", "char_length" -> {
        arity(fn, args, 1, where);
        if (typeOf(args.get(0)) != DataType.VARCHAR) {
          throw new PlanException("type mismatch in " + where + ": " + fn + " needs a varchar, got " + typeOf(args.get(0)).sqlName());
        }
        return call(fn, args, fn.equals("char_length") ? DataType.INT : DataType.VARCHAR);
      }
      case "concat" -> {
        for (Expr a : args) {
          if (typeOf(a) != DataType.VARCHAR) {
            throw new PlanException("type mismatch in " + where + ": concat needs varchar operands, got " + typeOf(a).sqlName());
          }
        }
        return call(fn, args, DataType.VARCHAR);
      }
      case "substring", "split_part", "regexp_replace", "regexp_extract", "regexp_like", "like", "replace", "position",
          "trim_both", "trim_leading", "trim_trailing", "extract", "date_trunc", "to_char" -> {
        return stringOrTime(fn, args, where);
      }
      default -> throw new PlanException("unknown function '" + fn + "' in " + where
          + "; known: add sub mul div mod neg eq ne lt le gt ge and or not is_null in cast case coalesce lower upper char_length concat "
          + String.join(" ", SIGNATURES.keySet()));
    }
  }

  /**
   * Argument kinds of the string and date/time functions ({@link ScalarFunctions}): s a varchar, i an
   * integer, t a timestamp, u a unit literal, f a to_char format literal, p a regular expression; a
   * trailing ? marks optional arguments. The result type follows the colon.
   */
  private static final java.util.Map<String, String> SIGNATURES = new java.util.TreeMap<>(java.util.Map.ofEntries(
      java.util.Map.entry("substring", "si?i:s"), java.util.Map.entry("split_part", "ssi:s"),
      java.util.Map.entry("regexp_replace", "sps?s:s"), java.util.Map.entry("regexp_extract", "sp?i:s"),
      java.util.Map.entry("regexp_like", "sp:b"), java.util.Map.entry("like", "ss?s:b"), java.util.Map.entry("replace", "sss:s"),
      java.util.Map.entry("position", "ss:n"), java.util.Map.entry("trim_both", "ss:s"), java.util.Map.entry("trim_leading", "ss:s"),
      java.util.Map.entry("trim_trailing", "ss:s"), java.util.Map.entry("extract", "ut:l"), java.util.Map.entry("date_trunc", "ut:t"),
      java.util.Map.entry("to_char", "tf:s")));

  private static Expr stringOrTime(String fn, List<Expr> args, String where) {
    String sig = SIGNATURES.get(fn);
    String params = sig.substring(0, sig.indexOf(':'));
    int required = params.indexOf('?') < 0 ? params.length() : params.indexOf('?');
    String kinds = params.replace("?", "");
    if (args.size() < required || args.size() > kinds.length()) {
      throw new PlanException(fn + " takes " + (required == kinds.length() ? String.valueOf(required) : required + " to " + kinds.length())
          + " arguments, got " + args.size() + " in " + where);
    }
    for (int i = 0; i < args.size(); i++) {
      Expr a = args.get(i);
      DataType t = typeOf(a);
      char k = kinds.charAt(i);
      boolean ok = switch (k) {
        case 'i' -> t == DataType.INT || t == DataType.BIGINT;
        case 't' -> t == DataType.TIMESTAMP;
        default -> t == DataType.VARCHAR;
      };
      if (!ok) {
        String want = k == 'i' ? "an integer" : k == 't' ? "a timestamp" : "a varchar";
        throw new PlanException("type mismatch in " + where + ": argument " + (i + 1) + " of " + fn + " is " + t.sqlName()
            + ", must be " + want);
      }
      Object lit = a.hasLiteral() ? value(a.getLiteral()) : null;
      if ((k == 'u' || k == 'f') && !a.hasLiteral()) {
        throw new PlanException(fn + " in " + where + ": argument " + (i + 1) + " must be a literal " + (k == 'u' ? "unit" : "format"));
      }
      try {
        if (k == 'u' && lit != null) {
          String unit = ((String) lit).toLowerCase(java.util.Locale.ROOT);
          ScalarFunctions.checkUnit(unit, fn.equals("extract") ? ScalarFunctions.EXTRACT_UNITS : ScalarFunctions.TRUNC_UNITS, fn);
          args.set(i, Expr.newBuilder().setLiteral(literal(unit, DataType.VARCHAR)).setType(a.getType()).build());
        } else if (k == 'f' && lit != null) {
          ScalarFunctions.checkFormat((String) lit);
        } else if (k == 'p' && lit != null) {
          ScalarFunctions.checkPattern((String) lit);
        }
      } catch (IllegalArgumentException e) {
        throw new PlanException(e.getMessage() + " in " + where);
      }
    }
    DataType out = switch (sig.charAt(sig.length() - 1)) {
      case 'b' -> DataType.BOOLEAN;
      case 'n' -> DataType.INT;
      case 'l' -> DataType.BIGINT;
      case 't' -> DataType.TIMESTAMP;
      default -> DataType.VARCHAR;
    };
    return call(fn, args, out);
  }

  /** A literal's Java value must be of its declared type (integers must fit), else the plan is refused. */
  private static void checkLiteral(Ex.Lit l, String where) {
    Object v = l.value();
    if (v == null || l.type() == null) {
      if (l.type() == null) {
        throw new PlanException("literal " + v + " in " + where + " has no type");
      }
      return;
    }
    boolean integral = v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte;
    boolean ok = switch (l.type()) {
      case BOOLEAN -> v instanceof Boolean;
      case INT -> integral && ((Number) v).longValue() == ((Number) v).intValue();
      case BIGINT, TIMESTAMP -> integral;
      case DOUBLE -> v instanceof Number;
      case VARCHAR -> v instanceof String;
    };
    if (!ok) {
      throw new PlanException("type mismatch in " + where + ": literal " + v + " (" + v.getClass().getSimpleName()
          + ") is not a valid " + l.type().sqlName());
    }
  }

  private static PlanException mismatch(String fn, String where, DataType a, DataType b, String needs) {
    return new PlanException("type mismatch in " + where + ": " + fn + "(" + a.sqlName() + ", " + b.sqlName() + ") needs " + needs);
  }

  private static void arity(String fn, List<Expr> args, int n, String where) {
    if (args.size() != n) {
      throw new PlanException(fn + " takes " + n + " argument(s), got " + args.size() + " in " + where);
    }
  }

  /** The type of values of types {@code a} (null: none yet) and {@code b} together, or a refusal. */
  private static DataType unify(String fn, DataType a, DataType b, String where) {
    if (a == null || a == b) {
      return b;
    }
    if (a.isNumeric() && b.isNumeric()) {
      return wider(a, b);
    }
    throw mismatch(fn, where, a, b, "values of one type");
  }

  static boolean comparable(DataType a, DataType b) {
    return a == b || (a.isNumeric() && b.isNumeric());
  }

  static DataType wider(DataType a, DataType b) {
    if (a == DataType.DOUBLE || b == DataType.DOUBLE) {
      return DataType.DOUBLE;
    }
    if (a == DataType.BIGINT || b == DataType.BIGINT) {
      return DataType.BIGINT;
    }
    return DataType.INT;
  }

  public static DataType typeOf(Expr e) {
    return Types.of(e.getType());
  }

  private static Expr call(String fn, List<Expr> args, DataType type) {
    return Expr.newBuilder().setCall(Call.newBuilder().setFunction(fn).addAllArgs(args)).setType(Types.toProto(type)).build();
  }

  public static Literal literal(Object v, DataType type) {
    Literal.Builder b = Literal.newBuilder().setType(Types.toProto(type));
    if (v == null) {
      return b.setIsNull(true).build();
    }
    switch (type) {
      case BOOLEAN -> b.setBoolValue((Boolean) v);
      case INT -> b.setIntValue(((Number) v).intValue());
      case BIGINT, TIMESTAMP -> b.setLongValue(((Number) v).longValue());
      case DOUBLE -> b.setDoubleValue(((Number) v).doubleValue());
      case VARCHAR -> b.setStringValue((String) v);
    }
    return b.build();
  }

  /** Boxed value of a literal. */
  public static Object value(Literal l) {
    if (l.getIsNull()) {
      return null;
    }
    return switch (l.getValueCase()) {
      case BOOL_VALUE -> l.getBoolValue();
      case INT_VALUE -> l.getIntValue();
      case LONG_VALUE -> l.getLongValue();
      case DOUBLE_VALUE -> l.getDoubleValue();
      case STRING_VALUE -> l.getStringValue();
      case VALUE_NOT_SET -> null;
    };
  }
}
