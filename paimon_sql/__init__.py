"""paimon-sql: Apache Paimon tables as a first-class part of DuckDB, without a JVM."""
