package dev.tide.sql;

import dev.tide.common.types.DataType;

/** A result column: name and Tide type (which fixes the PostgreSQL type OID). */
public record Column(String name, DataType type) {}
