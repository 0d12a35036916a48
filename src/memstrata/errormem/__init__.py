"""The cross-session memory of tool errors and their fixes, and its model-facing tools."""

from ._checks import (
    check_error_text,
    check_prefix,
    check_query_text,
    check_tool_name,
    record_fields,
)
from ._checks import check_limit as check_error_limit
from ._memory import ErrorMemory
from ._tools import ERROR_TOOL_NAMES, ErrorSource, error_tool_definitions, execute_error_tool

__all__ = ["ERROR_TOOL_NAMES", "ErrorMemory", "ErrorSource", "check_error_limit",
           "check_error_text", "check_prefix", "check_query_text", "check_tool_name",
           "error_tool_definitions", "execute_error_tool", "record_fields"]
