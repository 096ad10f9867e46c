package dev.tide.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A cursor over the tokens of one statement, for the statements Tide parses itself (DDL, SHOW,
 * ALTER); queries go to Calcite. Identifiers fold to lower case unless double-quoted, as in
 * PostgreSQL. Positions are 1-based character offsets into the statement.
 */
final class Tokens {
  enum Kind { WORD, QUOTED_IDENT, STRING, NUMBER, SYMBOL, END }

  record Token(Kind kind, String text, int position) {
    /** Keyword or identifier text, lower-cased unless quoted. */
    String ident() {
      return kind == Kind.WORD ? text.toLowerCase(Locale.ROOT) : text;
    }
  }

  private final String sql;
  private final List<Token> tokens;
  private int at;

  Tokens(String sql) {
    this.sql = sql;
    this.tokens = lex(sql);
  }

  String sql() {
    return sql;
  }

  Token peek() {
    return tokens.get(at);
  }

  Token peek(int ahead) {
    return tokens.get(Math.min(at + ahead, tokens.size() - 1));
  }

  Token next() {
    Token t = tokens.get(at);
    if (t.kind() != Kind.END) {
      at++;
    }
    return t;
  }

  boolean atEnd() {
    return peek().kind() == Kind.END;
  }

  /** True (and consumed) when the next tokens are these keywords, case-insensitively. */
  boolean accept(String... words) {
    for (int i = 0; i < words.length; i++) {
      Token t = peek(i);
      if (!(t.kind() == Kind.WORD || t.kind() == Kind.SYMBOL) || !t.text().equalsIgnoreCase(words[i])) {
        return false;
      }
    }
    at += words.length;
    return true;
  }

  void expect(String word) {
    if (!accept(word)) {
      throw error("expected " + word);
    }
  }

  String identifier(String what) {
    Token t = peek();
    if (t.kind() != Kind.WORD && t.kind() != Kind.QUOTED_IDENT) {
      throw error("expected " + what);
    }
    next();
    return t.ident();
  }

  String string(String what) {
    Token t = peek();
    if (t.kind() != Kind.STRING) {
      throw error("expected " + what + " as a quoted string");
    }
    next();
    return t.text();
  }

  void expectEnd() {
    if (!atEnd()) {
      throw error("unexpected text after the end of the statement");
    }
  }

  /** A syntax error at the next token, quoting it. */
  SqlException error(String message) {
    Token t = peek();
    String near = t.kind() == Kind.END ? "at end of input" : "at or near \"" + t.text() + "\"";
    return new SqlException(SqlException.SYNTAX, "syntax error " + near + ": " + message, t.position());
  }

  /** The text from the next token's start to the end of the statement. */
  int restOffset() {
    return peek().position() - 1;
  }

  private static List<Token> lex(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < s.length() && s.charAt(i + 1) == '-') {
        while (i < s.length() && s.charAt(i) != '\n') {
          i++;
        }
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '$')) {
          i++;
        }
        out.add(new Token(Kind.WORD, s.substring(start, i), start + 1));
      } else if (Character.isDigit(c)) {
        int start = i;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
        out.add(new Token(Kind.NUMBER, s.substring(start, i), start + 1));
      } else if (c == '\'' || c == '"') {
        int start = i;
        StringBuilder b = new StringBuilder();
        i++;
        while (true) {
          if (i >= s.length()) {
            throw new SqlException(SqlException.SYNTAX, "unterminated quoted " + (c == '"' ? "identifier" : "string"), start + 1);
          }
          if (s.charAt(i) == c) {
            if (i + 1 < s.length() && s.charAt(i + 1) == c) {
              b.append(c);
              i += 2;
              continue;
            }
            i++;
            break;
          }
          b.append(s.charAt(i++));
        }
        out.add(new Token(c == '"' ? Kind.QUOTED_IDENT : Kind.STRING, b.toString(), start + 1));
      } else {
        out.add(new Token(Kind.SYMBOL, String.valueOf(c), i + 1));
        i++;
      }
    }
    out.add(new Token(Kind.END, "", s.length() + 1));
    return out;
  }
}
