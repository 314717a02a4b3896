"""Cross-partition primary-key tables (bucket -1, key without the partition column) written in
turn by paimon-sql and a Java oracle: the statements, and a plain dict model of Java's rules that
gives the rows they must leave (computed without paimon-sql).

Java's rules (``org.apache.paimon.crosspartition``): deduplicate moves a key to the partition of
its latest row (the old partition gets a retraction); partial-update and aggregation update the key
where it lives; first-row keeps the first row of a key wherever a later one is written.
"""

from __future__ import annotations

from typing import Any

#: Flink's ``CREATE TABLE`` form (paimon-sql takes it too); {t} is the table.
DDL = (
    "CREATE TABLE {t} (id INT NOT NULL, dt STRING, v INT, s STRING, "
    "PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt) WITH ({props})"
)
#: Spark's form.
SPARK_DDL = (
    "CREATE TABLE {t} (id INT NOT NULL, dt STRING, v INT, s STRING) USING paimon "
    "PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = 'id', {props})"
)
_EXTRA = {
    "aggregation": ", 'fields.v.aggregate-function' = 'sum'",
    "partial-update": ", 'partial-update.remove-record-on-delete' = 'true'",
}

#: (writer, statement): rows (id, dt, v, s) to INSERT, or ("delete", id) / ("update-s", id, s).
#: "creator" is whoever created the table; "java" is the oracle.
STEPS: tuple[tuple[str, Any], ...] = (
    (
        "creator",
        [
            (1, "a", 10, "x"),
            (2, "a", 20, "y"),
            (3, "b", 30, "z"),
            (4, "b", 40, "w"),
            (5, "c", 50, "q"),
        ],
    ),
    # key 1 moves; 6 is new and named in two partitions; 3 stays; 2 moves away and back
    (
        "ours",
        [
            (1, "b", 11, None),
            (6, "a", 60, "n"),
            (6, "c", 61, "n2"),
            (3, "b", 31, "same"),
            (2, "c", 21, "m"),
            (2, "a", 22, "back"),
        ],
    ),
    ("java", [(1, "c", 12, "f"), (7, "a", 70, "f7"), (4, "a", 41, None)]),
    ("ours", [(7, "b", 71, "o"), (5, "a", 51, "again"), (8, "c", 80, "e")]),
    ("ours", ("update-s", 1, "u")),
    ("ours", ("delete", 3)),
)


def props(engine: str) -> str:
    """The table options of the merge engine's case."""
    return (
        "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '2', "
        f"'merge-engine' = '{engine}'{_EXTRA.get(engine, '')}"
    )


def ddl(engine: str, *, spark: bool = False) -> str:
    """The CREATE TABLE of the merge engine's case ({t} left for the table)."""
    return (SPARK_DDL if spark else DDL).replace("{props}", props(engine))


def applies(engine: str, step: Any) -> bool:
    """Java refuses UPDATE and DELETE on aggregation and first-row tables (so does paimon-sql)."""
    return not (engine in ("aggregation", "first-row") and step[0] in ("delete", "update-s"))


def model(engine: str, steps: list[Any]) -> list[dict[str, Any]]:
    """The rows the steps leave, by Java's documented cross-partition rules (a dict per key)."""
    table: dict[int, dict[str, Any]] = {}
    for step in steps:
        if step[0] == "delete":
            table.pop(step[1], None)
            continue
        if step[0] == "update-s":
            table[step[1]]["s"] = step[2]
            continue
        for key, dt, v, s in step:
            row = {"id": key, "dt": dt, "v": v, "s": s}
            old = table.get(key)
            if old is None or engine == "deduplicate":
                table[key] = row
            elif engine == "partial-update":  # non-null fields update the row where it lives
                old.update({c: row[c] for c in ("v", "s") if row[c] is not None})
            elif engine == "aggregation":  # the sum, last non-null s, in the key's partition
                old["v"] = (old["v"] or 0) + v if v is not None else old["v"]
                old["s"] = s if s is not None else old["s"]
            # first-row: the first row of a key stays
    return list(table.values())


def statement(step: Any, table: str, *, typed_null: bool = False) -> str:
    """The SQL of a step on `table` (`typed_null`: Flink needs ``CAST(NULL AS STRING)``)."""
    if step[0] == "delete":
        return f"DELETE FROM {table} WHERE id = {int(step[1])}"  # noqa: S608 - test literals
    if step[0] == "update-s":
        return f"UPDATE {table} SET s = '{step[2]}' WHERE id = {int(step[1])}"  # noqa: S608

    def text(value: Any) -> str:
        if value is None:
            return "CAST(NULL AS STRING)" if typed_null else "NULL"
        return f"'{value}'" if isinstance(value, str) else str(int(value))

    values = ", ".join("(" + ", ".join(text(v) for v in row) + ")" for row in step)
    return f"INSERT INTO {table} VALUES {values}"  # noqa: S608 - test literals only
