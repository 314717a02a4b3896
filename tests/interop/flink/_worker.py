"""Runs inside the Flink virtualenv (PyFlink 1.20), never imported by tests: one long-lived process.

Started by `tests.interop.flink.harness.FlinkOracle` with ``HADOOP_CLASSPATH`` naming the Paimon
Flink jar, the shaded Hadoop jar and the compiled ``paimonsql.flink.Bridge``, so all three are on
the gateway JVM's own class path. It starts one Flink MiniCluster in that JVM and a batch
``TableEnvironment`` whose jobs go to it (``execution.target=remote`` at the MiniCluster's REST
port): a job then costs well under a second instead of a fresh cluster per job.

Protocol: one JSON request per line on stdin, one JSON answer per line on the original stdout
(the JVM's and PyFlink's own output goes to stderr):

* ``{"op": "sql", "warehouse": "/abs/path", "statements": ["CREATE TABLE ...", ...]}`` runs the
  statements in order in the Paimon catalog over that warehouse (created on first use, current
  database ``db``) and answers ``{"ok": true, "results": [{"columns", "types", "rows"}, ...]}``,
  values in the Bridge's lossless tagged JSON. The first failing statement stops the request:
  ``{"ok": false, "index": i, "error": "<Java exception chain>"}``.
* ``{"op": "versions"}`` answers the Flink, Paimon (jar manifest) and Java versions.

This file imports nothing from the repository.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback


def _java_error(err: BaseException) -> str:
    """The Java exception chain (class: message per cause) or the Python traceback."""
    java = getattr(err, "java_exception", None)
    if java is None:  # PyFlink turned the Py4JJavaError into its own exception: its text is Java's
        lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
        if not lines:
            return "".join(traceback.format_exception(err))
        causes = [ln for ln in lines if ln.startswith("Caused by:")]
        return "\n".join([lines[0], *causes[:8]])
    lines = []
    while java is not None and len(lines) < 12:
        lines.append(f"{java.getClass().getName()}: {java.getMessage()}")
        cause = java.getCause()
        java = None if cause is None or cause.equals(java) else cause
    return "\n".join(lines)


class Oracle:
    """One MiniCluster, one batch TableEnvironment, one Paimon catalog per warehouse."""

    def __init__(self) -> None:
        from pyflink.java_gateway import get_gateway
        from pyflink.table import EnvironmentSettings, TableEnvironment

        gateway = get_gateway()
        jvm = gateway.jvm
        conf = jvm.org.apache.flink.configuration.Configuration()
        conf.setString("rest.bind-address", "127.0.0.1")
        conf.setString("rest.address", "127.0.0.1")
        conf.setString("rest.port", "0")
        conf.setString("taskmanager.memory.network.min", "32m")
        conf.setString("taskmanager.memory.network.max", "32m")
        conf.setString("taskmanager.memory.managed.size", "64m")
        builder = jvm.org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder()
        cluster_conf = (
            builder.setConfiguration(conf)
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(4)
            .build()
        )
        self.cluster = jvm.org.apache.flink.runtime.minicluster.MiniCluster(cluster_conf)
        self.cluster.start()
        rest = self.cluster.getRestAddress().get()
        self.bridge = jvm.paimonsql.flink.Bridge
        self.bridge.useCluster(rest.getHost(), rest.getPort())
        settings = (
            EnvironmentSettings.new_instance()
            .in_batch_mode()
            .with_configuration(
                _configuration(
                    {
                        "execution.target": "remote",
                        "rest.address": rest.getHost(),
                        "rest.port": str(rest.getPort()),
                        "parallelism.default": "1",
                        "table.exec.resource.default-parallelism": "1",
                        "table.local-time-zone": "UTC",
                        "table.dml-sync": "true",
                        "pipeline.name": "paimon-sql-oracle",
                    }
                )
            )
            .build()
        )
        self.env = TableEnvironment.create(settings)
        self.catalogs: dict[str, str] = {}

    def use(self, warehouse: str) -> None:
        name = self.catalogs.get(warehouse)
        if name is None:
            name = f"w{len(self.catalogs)}"
            literal = "'" + ("file://" + warehouse).replace("'", "''") + "'"
            self._run(
                f"CREATE CATALOG {name} WITH ('type' = 'paimon', 'warehouse' = {literal}, "
                "'cache-enabled' = 'false')"
            )
            self._run(f"CREATE DATABASE IF NOT EXISTS {name}.db")
            self.catalogs[warehouse] = name
        self._run(f"USE CATALOG {name}")
        self._run("USE db")

    def _run(self, statement: str) -> dict:
        return json.loads(self.bridge.run(self.env._j_tenv, statement))

    def sql(self, request: dict) -> dict:
        self.use(request["warehouse"])
        results = []
        for index, statement in enumerate(request["statements"]):
            print(
                f"[worker] {time.strftime('%H:%M:%S')} {statement[:300]}",
                file=sys.stderr,
                flush=True,
            )
            try:
                results.append(self._run(statement))
            except Exception as err:  # noqa: BLE001 - the worker answers every failure as JSON
                return {"ok": False, "index": index, "error": _java_error(err)}
        return {"ok": True, "results": results}

    def versions(self) -> dict:
        """Flink's version, the Paimon jar's (from its manifest) and Java's."""
        from pyflink.java_gateway import get_gateway

        jvm = get_gateway().jvm
        paimon = jvm.org.apache.paimon.table.Table._java_lang_class.getPackage()
        return {
            "ok": True,
            "flink": jvm.org.apache.flink.runtime.util.EnvironmentInformation.getVersion(),
            "paimon": paimon.getImplementationVersion() if paimon is not None else None,
            "java": jvm.System.getProperty("java.version"),
        }


def _configuration(values: dict[str, str]):
    from pyflink.common import Configuration

    conf = Configuration()
    for key, value in values.items():
        conf.set_string(key, value)
    return conf


def main() -> None:
    # Answers go to the original stdout; anything else written to fd 1 (the JVM is a child and
    # inherits it) goes to stderr. Done here, not at import: pytest's doctest collection imports
    # this module.
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        oracle = Oracle()
        answer = {"ok": True, "ready": True}
    except Exception as err:  # noqa: BLE001 - the worker answers every failure as JSON
        oracle, answer = None, {"ok": False, "error": _java_error(err)}
    protocol.write(json.dumps(answer) + "\n")
    protocol.flush()
    if oracle is None:
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        try:
            if op == "sql":
                answer = oracle.sql(request)
            elif op == "versions":
                answer = oracle.versions()
            else:
                answer = {"ok": False, "error": f"unknown op {op!r}"}
        except Exception as err:  # noqa: BLE001 - the worker answers every failure as JSON
            answer = {"ok": False, "error": _java_error(err)}
        protocol.write(json.dumps(answer) + "\n")
        protocol.flush()


if __name__ == "__main__":
    main()
