"""The cross-session memory of tool errors and their fixes, and its model-facing tools."""

from ._memory import ErrorMemory
from ._tools import ERROR_TOOL_NAMES, ErrorSource, error_tool_definitions, execute_error_tool

__all__ = ["ERROR_TOOL_NAMES", "ErrorMemory", "ErrorSource", "error_tool_definitions",
           "execute_error_tool"]
