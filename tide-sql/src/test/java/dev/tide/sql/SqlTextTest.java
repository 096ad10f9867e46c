package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Statement splitting, parameter substitution, positions and the DDL tokenizer, by hand-picked cases. */
class SqlTextTest {
  @Test
  void splitsAtSemicolonsOutsideQuotesAndCommentsKeepingOffsets() {
    List<SqlEngine.Statement> s = SqlEngine.split("SELECT ';' AS a; -- c;\nSELECT \"x;y\" FROM t;;  ");
    assertThat(s).extracting(SqlEngine.Statement::text).containsExactly("SELECT ';' AS a", " -- c;\nSELECT \"x;y\" FROM t");
    assertThat(s).extracting(SqlEngine.Statement::offset).containsExactly(0, 16);
    assertThat(SqlEngine.split("  ;; -- only a comment")).isEmpty();
  }

  @Test
  void substitutesParametersOutsideQuotes() {
    assertThat(SqlEngine.substitute("SELECT $1, '$1', $2 FROM t WHERE a = $1", new String[] {"42", null}))
        .isEqualTo("SELECT 42, '$1', NULL FROM t WHERE a = 42");
    assertThat(SqlEngine.parameterCount("SELECT $3 + $1, '$9'")).isEqualTo(3);
    assertThatThrownBy(() -> SqlEngine.substitute("SELECT $2", new String[] {"1"})).isInstanceOf(SqlException.class)
        .hasMessageContaining("parameter $2 has no value: 1 were bound");
  }

  @Test
  void linesAndColumnsBecomeOneBasedOffsets() {
    String sql = "SELECT a\nFROM nosuch";
    assertThat(SqlEngine.offset(sql, 1, 8)).isEqualTo(8);
    assertThat(SqlEngine.offset(sql, 2, 6)).isEqualTo(sql.indexOf("nosuch") + 1);
    assertThat(SqlEngine.offset(sql, 0, 0)).isZero();
  }

  @Test
  void tokensFoldUnquotedIdentifiersAndPointAtErrors() {
    Tokens t = new Tokens("CREATE Source \"MixedCase\" WITH (a = 'it''s')");
    assertThat(t.accept("create", "source")).isTrue();
    assertThat(t.identifier("a name")).isEqualTo("MixedCase");
    assertThat(t.accept("with", "(")).isTrue();
    assertThat(t.identifier("a key")).isEqualTo("a");
    t.expect("=");
    assertThat(t.string("a value")).isEqualTo("it's");
    SqlException e = t.error("expected )");
    assertThat(e.position()).isEqualTo(44);
    assertThat(e.sqlState()).isEqualTo(SqlException.SYNTAX);
    assertThatThrownBy(() -> new Tokens("SELECT 'open")).isInstanceOfSatisfying(SqlException.class,
        x -> assertThat(x.position()).isEqualTo(8));
  }

  @Test
  void shiftingMovesOnlyPositionedErrors() {
    assertThat(new SqlException("42601", "m", 3).shifted(10).position()).isEqualTo(13);
    assertThat(new SqlException("0A000", "m").shifted(10).position()).isZero();
  }
}
