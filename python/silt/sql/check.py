"""Syntax checks of Silt statements with the Python parser generated from the shared grammar.

Used by ``silt sql`` to report a mistake in a Silt statement (line, column, caret) before any
JVM starts. Statements that are not Silt's (SELECT, CREATE TABLE, …) are left to Spark.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Optional

from antlr4 import CommonTokenStream, InputStream, Token
from antlr4.error.ErrorListener import ErrorListener

from silt.sql.generated.SiltSqlBaseLexer import SiltSqlBaseLexer
from silt.sql.generated.SiltSqlBaseParser import SiltSqlBaseParser

_LEADING = {"OPTIMIZE", "VACUUM", "REORG", "RESTORE", "CHECKPOINT", "CONVERT", "GENERATE"}
_DESCRIBE_OBJECTS = {"HISTORY", "DETAIL", "FILES"}
# First words of Spark's own statements: never taken for a misspelt Silt keyword.
_SPARK_LEADING = {
    "ADD", "ALTER", "ANALYZE", "BEGIN", "CACHE", "CALL", "CLEAR", "COMMENT", "COMMIT", "CREATE", "DECLARE",
    "DELETE", "DESC", "DESCRIBE", "DROP", "EXECUTE", "EXPLAIN", "FROM", "GRANT", "INSERT", "LIST", "LOAD",
    "MAP", "MERGE", "MSCK", "REDUCE", "REFRESH", "REPAIR", "REPLACE", "RESET", "REVOKE", "ROLLBACK", "SELECT",
    "SET", "SHOW", "TABLE", "TRUNCATE", "UNCACHE", "UNSET", "UPDATE", "USE", "VALUES", "WITH",
}


@dataclass(frozen=True)
class SyntaxProblem:
    """Where and why a Silt statement does not parse."""

    line: int
    column: int
    message: str

    def render(self, statement: str) -> str:
        """The message with the statement's line and a caret under the column."""
        lines = statement.splitlines()
        # a problem at the end of a statement ending in a newline is on the line after its last
        text = lines[self.line - 1] if 0 < self.line <= len(lines) else ""
        return f"syntax error at line {self.line}, column {self.column + 1}: {self.message}\n  {text}\n  {' ' * self.column}^"


class _Collect(ErrorListener):
    def __init__(self) -> None:
        self.problem: Optional[SyntaxProblem] = None

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):  # noqa: N802 (ANTLR's name)
        if self.problem is None:
            self.problem = SyntaxProblem(line, column, msg)


def is_silt_statement(statement: str) -> bool:
    """Whether the statement starts like one of Silt's own statements."""
    lexer = SiltSqlBaseLexer(InputStream(statement))
    lexer.removeErrorListeners()
    words = [t.text.upper() for t in lexer.getAllTokens() if t.channel == Token.DEFAULT_CHANNEL][:2]
    if not words:
        return False
    return words[0] in _LEADING or (words[0] in ("DESCRIBE", "DESC") and len(words) > 1 and words[1] in _DESCRIBE_OBJECTS)


def misspelt_keyword(statement: str) -> Optional[SyntaxProblem]:
    """A first word that is not a statement but is close to one of Silt's (``OPTIMZE``), as a problem."""
    lexer = SiltSqlBaseLexer(InputStream(statement))
    lexer.removeErrorListeners()
    first = next((t for t in lexer.getAllTokens() if t.channel == Token.DEFAULT_CHANNEL), None)
    if first is None or not first.text.isalpha():
        return None
    word = first.text.upper()
    if word in _LEADING or word in _SPARK_LEADING:
        return None
    match = difflib.get_close_matches(word, sorted(_LEADING), n=1, cutoff=0.75)
    if not match:
        return None
    return SyntaxProblem(first.line, first.column, f"unknown statement '{first.text}': did you mean {match[0]}?")


def check(statement: str) -> Optional[SyntaxProblem]:
    """The first syntax problem of a Silt statement (or a misspelt Silt keyword), or None when it parses
    (or is not Silt's)."""
    if not is_silt_statement(statement):
        return misspelt_keyword(statement)
    lexer = SiltSqlBaseLexer(InputStream(statement))
    parser = SiltSqlBaseParser(CommonTokenStream(lexer))
    listener = _Collect()
    for recognizer in (lexer, parser):
        recognizer.removeErrorListeners()
        recognizer.addErrorListener(listener)
    parser.singleSiltStatement()
    return listener.problem
