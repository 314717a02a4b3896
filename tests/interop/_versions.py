"""The pinned versions of the interop oracle, in one place.

``PAIMON`` is the newest Apache Paimon release that publishes ``org.apache.paimon:paimon-spark-3.5``
on the Maven Central reachable from our machines: its ``maven-metadata.xml`` lists 0.7.0-incubating,
0.8.2 and 0.9.0, and the 1.x coordinates (``paimon-spark-3.5`` and ``paimon-spark-3.5_2.12``) return
404 there, although ``paimon-bundle`` goes up to 1.4.2. 0.9.0 was checked end to end with
``PYSPARK`` (tables, DML, procedures, time travel). Bumping either value changes the corpus hash,
so the Spark-written corpus is regenerated.
"""

from __future__ import annotations

PAIMON = "0.9.0"
SPARK_BINARY = "3.5"  # the Spark minor line of the runtime jar and of PYSPARK
PYSPARK = "3.5.9"
PAIMON_SPARK_ARTIFACT = f"org.apache.paimon:paimon-spark-{SPARK_BINARY}:{PAIMON}"
PAIMON_SPARK_JAR = f"paimon-spark-{SPARK_BINARY}-{PAIMON}.jar"
