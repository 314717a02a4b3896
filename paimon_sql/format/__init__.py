"""On-disk structures of Apache Paimon: frozen dataclasses and pure codecs.

Bytes or JSON in, objects out.
"""
