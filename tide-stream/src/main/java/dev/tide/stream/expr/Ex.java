package dev.tide.stream.expr;

import dev.tide.common.types.DataType;
import java.util.List;

/**
 * Unresolved scalar expressions as a user writes them (columns by name). Resolved against an input
 * schema by {@link ExprResolver} into typed protocol expressions.
 */
public sealed interface Ex {
  record Col(String name) implements Ex {}

  record Lit(Object value, DataType type) implements Ex {}

  record Fn(String name, List<Ex> args) implements Ex {}

  record Cast(Ex arg, DataType to) implements Ex {}

  static Ex col(String name) {
    return new Col(name);
  }

  static Ex lit(long v) {
    return new Lit(v, DataType.BIGINT);
  }

  static Ex lit(int v) {
    return new Lit(v, DataType.INT);
  }

  static Ex lit(double v) {
    return new Lit(v, DataType.DOUBLE);
  }

  static Ex lit(String v) {
    return new Lit(v, DataType.VARCHAR);
  }

  static Ex lit(boolean v) {
    return new Lit(v, DataType.BOOLEAN);
  }

  static Ex fn(String name, Ex... args) {
    return new Fn(name, List.of(args));
  }

  static Ex eq(Ex a, Ex b) {
    return fn("eq", a, b);
  }

  static Ex ne(Ex a, Ex b) {
    return fn("ne", a, b);
  }

  static Ex lt(Ex a, Ex b) {
    return fn("lt", a, b);
  }

  static Ex le(Ex a, Ex b) {
    return fn("le", a, b);
  }

  static Ex gt(Ex a, Ex b) {
    return fn("gt", a, b);
  }

  static Ex ge(Ex a, Ex b) {
    return fn("ge", a, b);
  }

  static Ex and(Ex a, Ex b) {
    return fn("and", a, b);
  }

  static Ex or(Ex a, Ex b) {
    return fn("or", a, b);
  }

  static Ex not(Ex a) {
    return fn("not", a);
  }

  static Ex add(Ex a, Ex b) {
    return fn("add", a, b);
  }

  static Ex sub(Ex a, Ex b) {
    return fn("sub", a, b);
  }

  static Ex mul(Ex a, Ex b) {
    return fn("mul", a, b);
  }

  static Ex div(Ex a, Ex b) {
    return fn("div", a, b);
  }

  static Ex mod(Ex a, Ex b) {
    return fn("mod", a, b);
  }

  static Ex in(Ex a, Ex... values) {
    Ex[] all = new Ex[values.length + 1];
    all[0] = a;
    System.arraycopy(values, 0, all, 1, values.length);
    return fn("in", all);
  }

  static Ex isNull(Ex a) {
    return fn("is_null", a);
  }

  static Ex cast(Ex a, DataType to) {
    return new Cast(a, to);
  }
}
