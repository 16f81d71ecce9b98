"""Field values: validation and normalisation of record field values by their field type.

The records actor calls :func:`check_values` with a module's fields and the supplied values;
it gets back normalised values, all issues, and the links it must verify against storage.
"""

from __future__ import annotations

from fieldhouse.model.fields import ParentCheck, ReferenceCheck, UserCheck, is_empty
from fieldhouse.model.values.check import ValueCheck, check_values, normalise_value

__all__ = [
    "ParentCheck",
    "ReferenceCheck",
    "UserCheck",
    "ValueCheck",
    "check_values",
    "is_empty",
    "normalise_value",
]
