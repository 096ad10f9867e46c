package dev.tide.sql;

import dev.tide.common.types.Field;
import java.util.List;
import java.util.Map;

/**
 * A source created by {@code CREATE SOURCE}: the connector's table, its options, the columns it
 * exposes (a subset of the connector's, in the declared order) and the declared watermark.
 *
 * @param watermarkColumn the column the WATERMARK clause names, or null
 * @param watermarkDelayMs the delay the clause subtracts, milliseconds
 */
record SourceDef(String name, String connector, String table, Map<String, String> options, List<Field> columns,
    String watermarkColumn, long watermarkDelayMs, String sql) {}
