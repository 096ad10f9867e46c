package dev.tide.sql;

import java.util.Set;

/** A materialized view created by SQL: its statement and the sources it reads. */
record ViewDef(String name, String sql, Set<String> sources) {}
