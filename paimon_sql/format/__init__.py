"""On-disk structures of Apache Paimon: frozen dataclasses and pure codecs (bytes or JSON in, objects out)."""
