package dev.tide.sql;

import java.util.List;
import org.apache.calcite.sql.SqlBasicFunction;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlNameMatchers;

/**
 * The functions a statement may call: Calcite's standard operators, its PostgreSQL library
 * ({@code SPLIT_PART}, {@code REGEXP_REPLACE}, {@code TO_CHAR}, ...), and PostgreSQL's
 * {@code DATE_TRUNC(unit, ts)} and Flink's {@code REGEXP_EXTRACT(s, pattern [, group])}, which
 * Calcite's libraries lack in that form. Function names are matched case-insensitively, as in
 * PostgreSQL (identifiers are case-sensitive, and Calcite's library tables match names exactly).
 */
final class Functions {
  static final SqlFunction DATE_TRUNC = SqlBasicFunction.create("DATE_TRUNC", ReturnTypes.ARG1_NULLABLE,
      OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.TIMESTAMP), SqlFunctionCategory.TIMEDATE);

  static final SqlFunction REGEXP_EXTRACT = SqlBasicFunction.create("REGEXP_EXTRACT",
      ReturnTypes.cascade(ReturnTypes.explicit(SqlTypeName.VARCHAR), SqlTypeTransforms.FORCE_NULLABLE),
      OperandTypes.or(OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER),
          OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER)),
      SqlFunctionCategory.STRING);

  private static final SqlOperatorTable CHAIN = SqlOperatorTables.chain(SqlStdOperatorTable.instance(),
      SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(SqlLibrary.POSTGRESQL),
      SqlOperatorTables.of(DATE_TRUNC, REGEXP_EXTRACT));

  static final SqlOperatorTable TABLE = new SqlOperatorTable() {
    @Override
    public void lookupOperatorOverloads(SqlIdentifier name, SqlFunctionCategory category, SqlSyntax syntax,
        List<SqlOperator> operatorList, SqlNameMatcher nameMatcher) {
      CHAIN.lookupOperatorOverloads(name, category, syntax, operatorList, SqlNameMatchers.withCaseSensitive(false));
    }

    @Override
    public List<SqlOperator> getOperatorList() {
      return CHAIN.getOperatorList();
    }
  };

  private Functions() {}
}
