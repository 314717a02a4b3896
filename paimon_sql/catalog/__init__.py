"""The filesystem catalog: a warehouse folder of ``<db>.db/<table>`` directories."""

from paimon_sql.catalog.catalog import Catalog, Identifier
from paimon_sql.catalog.table import Table

__all__ = ["Catalog", "Identifier", "Table"]
