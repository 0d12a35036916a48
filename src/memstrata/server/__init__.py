"""The HTTP service: memstrata for many tenants behind API keys (``memstrata serve``).

:func:`create_app` builds the FastAPI app over one database; :class:`Tenants` is what it
serves from (one store and one set of models, a ``Memory`` per tenant); :class:`ApiKeys`
makes, checks and revokes keys. Needs the ``server`` extra: ``pip install 'memstrata[server]'``.
"""

from .._keys import ApiKeys, parse_key
from ._app import STATIC_DIR, LifespanHook, create_app
from ._auth import TENANT_HEADER, tenant_for
from ._errors import Forbidden, NotReady, RateLimited, TooLarge, Unauthorized, error_body
from ._limits import DEFAULT_BODY_LIMIT, IMPORT_BODY_LIMIT
from ._logs import JsonLines, json_log_config, text_log_config
from ._protocol import header_timeout_protocol
from ._runtime import serving_runtime
from ._tenants import Tenants

__all__ = [
    "DEFAULT_BODY_LIMIT",
    "IMPORT_BODY_LIMIT",
    "STATIC_DIR",
    "TENANT_HEADER",
    "ApiKeys",
    "Forbidden",
    "JsonLines",
    "LifespanHook",
    "NotReady",
    "RateLimited",
    "Tenants",
    "TooLarge",
    "Unauthorized",
    "create_app",
    "error_body",
    "header_timeout_protocol",
    "json_log_config",
    "parse_key",
    "serving_runtime",
    "tenant_for",
    "text_log_config",
]
