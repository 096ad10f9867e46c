package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import java.util.List;
import java.util.function.Supplier;
import org.apache.calcite.DataContext;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlConformanceEnum;

/** Calcite's view of Tide's catalog: tables with Tide's column types, and the shared parser settings. */
public final class Schemas {
  /** PostgreSQL's identifier rules: unquoted names fold to lower case, quoted ones are kept. */
  static final SqlParser.Config PARSER = SqlParser.config().withQuoting(Quoting.DOUBLE_QUOTE)
      .withUnquotedCasing(Casing.TO_LOWER).withQuotedCasing(Casing.UNCHANGED).withCaseSensitive(true)
      .withConformance(SqlConformanceEnum.LENIENT);

  /**
   * PostgreSQL's text: CASE over strings of different lengths gives VARCHAR, not blank-padded CHAR.
   * AVG is fractional (DOUBLE, as Tide's aggregations compute it), not Calcite's AVG of integers in
   * their own type.
   */
  public static final class PgTypeSystem extends org.apache.calcite.rel.type.RelDataTypeSystemImpl {
    public static final PgTypeSystem INSTANCE = new PgTypeSystem();

    @Override
    public org.apache.calcite.rel.type.RelDataType deriveAvgAggType(org.apache.calcite.rel.type.RelDataTypeFactory types,
        org.apache.calcite.rel.type.RelDataType argument) {
      return types.createTypeWithNullability(types.createSqlType(org.apache.calcite.sql.type.SqlTypeName.DOUBLE), argument.isNullable());
    }

    @Override
    public boolean shouldConvertRaggedUnionTypesToVarying() {
      return true;
    }
  }

  static final PgTypeSystem TYPES = PgTypeSystem.INSTANCE;

  private Schemas() {}

  static SqlTypeName sqlType(DataType t) {
    return switch (t) {
      case BOOLEAN -> SqlTypeName.BOOLEAN;
      case INT -> SqlTypeName.INTEGER;
      case BIGINT -> SqlTypeName.BIGINT;
      case DOUBLE -> SqlTypeName.DOUBLE;
      case VARCHAR -> SqlTypeName.VARCHAR;
      case TIMESTAMP -> SqlTypeName.TIMESTAMP;
    };
  }

  /** Tide's type of a Calcite type, or null when Tide has none. */
  static DataType tideType(SqlTypeName t) {
    return switch (t) {
      case BOOLEAN -> DataType.BOOLEAN;
      case TINYINT, SMALLINT, INTEGER -> DataType.INT;
      case BIGINT -> DataType.BIGINT;
      case DECIMAL, FLOAT, REAL, DOUBLE -> DataType.DOUBLE;
      case CHAR, VARCHAR -> DataType.VARCHAR;
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> DataType.TIMESTAMP;
      default -> null;
    };
  }

  static RelDataType rowType(RelDataTypeFactory f, List<Field> fields) {
    return rowType(f, fields, true);
  }

  /** The row type of {@code fields}; {@code nullable} false for a source whose columns are never null. */
  static RelDataType rowType(RelDataTypeFactory f, List<Field> fields, boolean nullable) {
    RelDataTypeFactory.Builder b = f.builder();
    for (Field c : fields) {
      RelDataType t = c.type() == DataType.TIMESTAMP ? f.createSqlType(SqlTypeName.TIMESTAMP, 3)
          : c.type() == DataType.VARCHAR ? f.createSqlType(SqlTypeName.VARCHAR, Integer.MAX_VALUE)
          : f.createSqlType(sqlType(c.type()));
      b.add(c.name(), f.createTypeWithNullability(t, nullable));
    }
    return b.build();
  }

  /** A table Calcite can plan over but not read: a source. */
  static final class StreamTable extends AbstractTable {
    private final List<Field> fields;
    private final boolean nullable;

    StreamTable(List<Field> fields, boolean nullable) {
      this.fields = fields;
      this.nullable = nullable;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return rowType(f, fields, nullable);
    }
  }

  /** A view's committed rows, read when a query scans it. */
  static final class ViewTable extends AbstractTable implements ScannableTable {
    private final List<Field> fields;
    private final Supplier<List<Object[]>> rows;

    ViewTable(List<Field> fields, Supplier<List<Object[]>> rows) {
      this.fields = fields;
      this.rows = rows;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return rowType(f, fields);
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root) {
      return Linq4j.asEnumerable(rows.get());
    }
  }

  static void addSource(SchemaPlus schema, SourceDef s) {
    // The Nexmark generator fills every column, so the planner may drop null checks (IS NOT NULL
    // filters, null-safe rewrites); other connectors' columns can be null.
    schema.add(s.name(), new StreamTable(s.columns(), !s.connector().equals("nexmark")));
  }
}
