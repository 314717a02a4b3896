"""``paimon-sql`` options, formats, errors and exit codes, run in this process through `main`."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest

from paimon_sql.cli.main import main
from tests.unit.cli.conftest import PK_DEDUP_TABLE

CREATE = (
    "CREATE DATABASE db;\n"
    "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket'='1', 'primary-key'='id');\n"
    "INSERT INTO db.t VALUES (1, 'semi;colon'), (2, NULL), (3, 'it''s');\n"
)


@pytest.fixture
def warehouse(tmp_path):
    path = tmp_path / "wh"
    assert main([str(path), "--create", "-c", CREATE]) == 0
    return path


def test_command_renders_a_java_written_table(java_warehouse, capsys):
    code = main([str(java_warehouse), "-c", "SELECT * FROM db.pk_dedup ORDER BY id"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (0, PK_DEDUP_TABLE, "")


def test_several_commands_run_in_order(tmp_path, capsys):
    """``-c a -c b`` runs both, as DuckDB's CLI does (not only the last); a failure ends the run."""
    wh = str(tmp_path / "wh")
    args = [wh, "--create", "--format", "csv", "-c", "CREATE DATABASE db", "-c", "SHOW DATABASES"]
    assert main(args) == 0
    assert capsys.readouterr().out.endswith("database_name\ndb\n")
    bad = [wh, "--format", "csv", "-c", "SELECT * FROM db.missing", "-c", "SELECT 42 AS x"]
    assert main(bad) == 1
    assert capsys.readouterr().out == ""
    assert main([wh, "--format", "csv", "-c", ".quit", "-c", "SELECT 42 AS x"]) == 0
    assert capsys.readouterr().out == ""


def test_script_with_semicolons_in_strings_and_comments(tmp_path, capsys):
    script = tmp_path / "setup.sql"
    script.write_text(
        CREATE + "-- the rows; all of them\nSELECT id,\n  v\nFROM db.t\nORDER BY id;\n"
    )
    assert main([str(tmp_path / "wh"), "--create", "-f", str(script)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.endswith(
        "\n id | v\n----+------------\n  1 | semi;colon\n  2 | NULL\n  3 | it's\n(3 rows)\n"
    )


def test_script_stops_at_the_first_failing_statement(warehouse, tmp_path, capsys):
    script = tmp_path / "bad.sql"
    script.write_text(
        "INSERT INTO db.t VALUES (4, 'kept');\n\n"
        "SELECT * FROM db.missing;\n"
        "INSERT INTO db.t VALUES (5, 'never');\n"
    )
    assert main([str(warehouse), "-f", str(script)]) == 1
    _, err = capsys.readouterr()
    assert err.startswith("Error: table db.missing not found")
    assert err.endswith(f" ({script}:3)\n")
    assert err.count("\n") == 1
    main([str(warehouse), "--format", "csv", "-c", "SELECT id FROM db.t ORDER BY id"])
    assert capsys.readouterr().out == "id\n1\n2\n3\n4\n"


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT * FROM nowhere", "Error: Catalog Error: Table with name nowhere does not exist!"),
        ("SELECT 1 +", 'Error: Parser Error: syntax error at or near "+" (line 1, column 10)\n'),
        ("SELECT * FROM db.t VERSION AS OF 99", "Error: snapshot 99 of table db.t does not exist"),
        ("CREATE TABLE db.u (id INT) WITH ('bogus'='1')", "Error: unknown table option 'bogus'\n"),
        (
            "SELECT 1;\nSELECT 'unterminated",
            "Error: cannot read the statement: an unterminated string, quoted name or comment "
            "(line 2, column 8)\n",
        ),
    ],
)
def test_user_errors_are_one_line_with_exit_code_1(warehouse, capsys, sql, message):
    assert main([str(warehouse), "-c", sql]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_missing_script_and_missing_warehouse(tmp_path, capsys):
    assert main([str(tmp_path), "-f", str(tmp_path / "nope.sql")]) == 1
    assert capsys.readouterr().err == f"Error: No such file or directory: {tmp_path / 'nope.sql'}\n"
    assert main([str(tmp_path / "typo"), "-c", "SELECT 1"]) == 1
    assert capsys.readouterr().err == (
        f"Error: warehouse not found: {tmp_path / 'typo'} (--create makes a new one)\n"
    )
    assert not (tmp_path / "typo").exists()


def test_default_warehouse_is_created_in_the_working_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["-c", "CREATE DATABASE shop"]) == 0
    assert (tmp_path / "warehouse" / "shop.db").is_dir()
    assert "created database shop" in capsys.readouterr().out


def test_csv_and_json_formats(warehouse, capsys):
    query = "SELECT id, v FROM db.t ORDER BY id"
    assert main([str(warehouse), "--format", "csv", "-c", query]) == 0
    assert capsys.readouterr().out == "id,v\n1,semi;colon\n2,\n3,it's\n"
    assert main([str(warehouse), "--format", "json", "-c", query]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows == [{"id": 1, "v": "semi;colon"}, {"id": 2, "v": None}, {"id": 3, "v": "it's"}]


def test_parquet_needs_an_output_file(warehouse, tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main([str(warehouse), "--format", "parquet", "-c", "SELECT 1"])
    assert exited.value.code == 2
    assert "--format parquet needs --output FILE" in capsys.readouterr().err
    target = tmp_path / "out.parquet"
    query = "SELECT id, v FROM db.t ORDER BY id"
    assert main([str(warehouse), "--format", "parquet", "-o", str(target), "-c", query]) == 0
    assert capsys.readouterr() == ("", "")
    assert pq.read_table(target).to_pylist() == [
        {"id": 1, "v": "semi;colon"},
        {"id": 2, "v": None},
        {"id": 3, "v": "it's"},
    ]


def test_output_file_and_row_limit(warehouse, tmp_path, capsys):
    target = tmp_path / "out.txt"
    args = [str(warehouse), "--max-rows", "2", "-o", str(target)]
    assert main([*args, "-c", "SELECT id FROM db.t ORDER BY id"]) == 0
    assert capsys.readouterr() == ("", "")
    assert target.read_text() == " id\n----\n  1\n  2\n(3 rows, first 2 shown)\n"


def test_timer_goes_to_stderr(warehouse, capsys):
    assert main([str(warehouse), "--timer", "--format", "csv", "-c", "SELECT 1 AS x"]) == 0
    out, err = capsys.readouterr()
    assert out == "x\n1\n"
    assert err.startswith("Run Time: ")
    assert err.endswith(" s\n")


def test_statements_from_stdin(warehouse, monkeypatch, capsys):
    monkeypatch.setattr(
        "sys.stdin", io.StringIO("SELECT count(*) AS n FROM db.t;\nSELECT 'a;b' AS s;")
    )
    assert main([str(warehouse), "--format", "json"]) == 0
    assert capsys.readouterr().out == '{"n": 3}\n{"s": "a;b"}\n'
