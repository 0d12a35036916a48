// Generated from the OpenAPI document of `memstrata serve` by scripts/openapi.mjs:
// do not edit; run `npm run types` after the service's API changes.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up (no key needed) */
        get: operations["healthz_healthz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The database answers a read and requests are served (no key needed) */
        get: operations["readyz_readyz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a session's messages, newest first
         * @description A page of messages older than ``before_id``; an unknown session has none.
         */
        get: operations["list_messages_v1_sessions__session__messages_get"];
        put?: never;
        /**
         * Add a message
         * @description Store one message; when the answer arrives it is committed.
         */
        post: operations["add_message_v1_sessions__session__messages_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/messages/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add several messages atomically
         * @description Store every item, or none when one is invalid (the error names it: ``items[3].role``).
         */
        post: operations["add_messages_v1_sessions__session__messages_batch_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The context window and summary
         * @description What to send before the new user input: ``plain`` gives the stored messages,
         *     ``openai`` and ``anthropic`` the wire messages (each with its time header).
         */
        get: operations["context_v1_sessions__session__context_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search one session
         * @description Hits oldest first, with their neighbours (``matched: false``). ``status`` is
         *     ``no_match`` when nothing qualifies, ``indexing_pending`` when nothing did while messages still
         *     wait for their embeddings (ask again shortly).
         */
        get: operations["search_session_v1_sessions__session__search_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search every session of the tenant
         * @description Hits oldest first, with their neighbours (``matched: false``). ``status`` is
         *     ``no_match`` when nothing qualifies, ``indexing_pending`` when nothing did while messages still
         *     wait for their embeddings (ask again shortly).
         */
        get: operations["search_tenant_v1_search_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{message_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message with its neighbours */
        get: operations["read_message_v1_messages__message_id__get"];
        put?: never;
        post?: never;
        /**
         * Forget one message everywhere
         * @description Remove the message from every stratum (a summary that absorbed it is kept).
         */
        delete: operations["forget_message_v1_messages__message_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's sessions, newest activity first */
        get: operations["list_sessions_v1_sessions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How much the tenant holds, and what waits to be indexed */
        get: operations["tenant_stats_v1_stats_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Counts, hot tier, cursor and summary cost of one session */
        get: operations["session_stats_v1_sessions__session__get"];
        put?: never;
        post?: never;
        /** Delete a session from every stratum */
        delete: operations["remove_v1_sessions__session__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stored summary, as it is */
        get: operations["get_summary_v1_sessions__session__summary_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/summarize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bring the summary up to date
         * @description With a summary model every message after the cursor is merged (502 when the model
         *     fails; chunks before the failure stay saved); without one, a digest.
         */
        post: operations["summarize_v1_sessions__session__summarize_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete the messages (keeping the summary unless mode is all)
         * @description ``summary`` summarises everything first (a failure aborts, nothing is deleted) and
         *     keeps the summary; ``all`` deletes the summary too.
         */
        post: operations["reset_v1_sessions__session__reset_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The session as JSONL */
        get: operations["export_v1_sessions__session__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import JSONL (all or nothing)
         * @description Records as ``export`` writes them (or a ``[{role, content, sendAt, sender}]`` history
         *     array); a bad record is named by its line and nothing is stored. Up to 64 MiB.
         */
        post: operations["import__v1_sessions__session__import_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/errors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's records, newest first (not counted as hits) */
        get: operations["list_errors_v1_errors_get"];
        put?: never;
        /** Remember a tool error and its fix */
        post: operations["write_error_v1_errors_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/errors/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Records related to a failure, best first (each counts as a hit) */
        get: operations["search_errors_v1_errors_search_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/errors/hint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What past records say about a failure of a tool
         * @description Text ready for a model to read after the failed call; ``null`` when nothing relates.
         */
        get: operations["hint_v1_errors_hint_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/errors/{record_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One record by id or unique prefix */
        get: operations["read_error_v1_errors__record_id__get"];
        put?: never;
        post?: never;
        /** Delete one record */
        delete: operations["delete_error_v1_errors__record_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The keys within the admin key's tenants, oldest first */
        get: operations["list_keys_v1_admin_keys_get"];
        put?: never;
        /** Make an API key (shown once, in this answer) */
        post: operations["create_key_v1_admin_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key: requests with it are refused from now on */
        delete: operations["revoke_key_v1_admin_keys__key_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** BatchIn */
        BatchIn: {
            /** Items */
            items: components["schemas"]["MessageIn"][];
        };
        /** ContextOut */
        ContextOut: {
            /** Session */
            session: string;
            /**
             * Format
             * @enum {string}
             */
            format: "plain" | "openai" | "anthropic";
            /**
             * Messages
             * @description plain: the window's messages; openai/anthropic: ready to send.
             */
            messages: components["schemas"]["MessageOut"][] | components["schemas"]["WireMessage"][];
            /** Summary */
            summary: {
                [key: string]: unknown;
            } | null;
            /** Summary Kind */
            summary_kind: string | null;
            /** System Prompt */
            system_prompt: string | null;
            /** Turn Context */
            turn_context: string | null;
            /**
             * Unsummarized
             * @description Messages older than the window that the summary does not cover yet; summarise the session to bring them in.
             * @default 0
             */
            unsummarized: number;
        };
        /**
         * ErrorBody
         * @description Every error answer.
         */
        ErrorBody: {
            error: components["schemas"]["ErrorDetail"];
        };
        /** ErrorDetail */
        ErrorDetail: {
            /**
             * Type
             * @description snake_case kind: invalid_input, not_found, unauthorized, too_large, provider_error, unavailable, disk_full, store_error, internal_error, …
             */
            type: string;
            /** Message */
            message: string;
            /**
             * Field
             * @description The offending field or parameter, if one is.
             */
            field: string | null;
        };
        /** ErrorIn */
        ErrorIn: {
            /** Tool Name */
            tool_name: string;
            /** Keywords */
            keywords?: string[];
            /** Symptom */
            symptom: string;
            /** Cause */
            cause?: string | null;
            /** Action */
            action: string;
            /**
             * Outcome
             * @description resolved, failed or abandoned
             * @default resolved
             * @enum {string}
             */
            outcome: "resolved" | "failed" | "abandoned";
        };
        /** ErrorListOut */
        ErrorListOut: {
            /** Errors */
            errors: components["schemas"]["ErrorRecordOut"][];
        };
        /** ErrorRecordOut */
        ErrorRecordOut: {
            /** Id */
            id: string;
            /** Tool Name */
            tool_name: string;
            /** Keywords */
            keywords: string[];
            /** Symptom */
            symptom: string;
            /** Cause */
            cause: string | null;
            /** Action */
            action: string;
            /** Outcome */
            outcome: string;
            /**
             * Created At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            created_at: number;
            /**
             * Expires At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            expires_at: number;
            /** Hits */
            hits: number;
            /** Created At Iso */
            created_at_iso: string;
            /** Expires At Iso */
            expires_at_iso: string;
            /**
             * Created At Ns
             * @description created_at as a decimal string: exact in every language.
             */
            readonly created_at_ns: string;
            /**
             * Expires At Ns
             * @description expires_at as a decimal string: exact in every language.
             */
            readonly expires_at_ns: string;
        };
        /** HintOut */
        HintOut: {
            /** Hint */
            hint: string | null;
        };
        /** HitOut */
        HitOut: {
            message: components["schemas"]["MessageOut"];
            /** Score */
            score: number;
            /** Rank */
            rank: number | null;
            /**
             * Source
             * @enum {string}
             */
            source: "archive" | "recent" | "semantic" | "hybrid";
            /** Matched */
            matched: boolean;
        };
        /** ImportOut */
        ImportOut: {
            /** Imported */
            imported: number;
        };
        /** KeyIn */
        KeyIn: {
            /**
             * Tenant
             * @description The tenant the key opens, or a prefix ending in '*' ('acme/*'): requests then name their tenant in X-Memstrata-Tenant.
             */
            tenant: string;
            /**
             * Name
             * @description A label to recognise the key by.
             */
            name?: string | null;
            /**
             * Scopes
             * @description What the key may do.
             * @default [
             *       "read",
             *       "write"
             *     ]
             */
            scopes: ("read" | "write" | "admin")[];
            /**
             * Expires At
             * @description When the key stops working (ISO 8601; without an offset, UTC).
             */
            expires_at?: string | null;
            /**
             * Rate Per Second
             * @description Requests per second (default: the service's setting).
             */
            rate_per_second?: number | null;
            /**
             * Messages Per Day
             * @description Messages each tenant of the key may add per UTC day.
             */
            messages_per_day?: number | null;
            /**
             * Stored Bytes
             * @description Bytes of message text each tenant of the key may keep.
             */
            stored_bytes?: number | null;
        };
        /** KeyListOut */
        KeyListOut: {
            /** Keys */
            keys: components["schemas"]["KeyOut"][];
        };
        /** KeyOut */
        KeyOut: {
            /** Id */
            id: string;
            /** Tenant */
            tenant: string;
            /** Name */
            name: string | null;
            /** Scopes */
            scopes: string[];
            /**
             * Created At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            created_at: number;
            /** Created At Iso */
            created_at_iso: string;
            /**
             * Expires At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            expires_at: number | null;
            /** Expires At Iso */
            expires_at_iso: string | null;
            /**
             * Revoked At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            revoked_at: number | null;
            /** Revoked At Iso */
            revoked_at_iso: string | null;
            /** Rate Per Second */
            rate_per_second: number | null;
            /** Messages Per Day */
            messages_per_day: number | null;
            /** Stored Bytes */
            stored_bytes: number | null;
            /**
             * Created At Ns
             * @description created_at as a decimal string: exact in every language.
             */
            readonly created_at_ns: string;
            /**
             * Expires At Ns
             * @description expires_at as a decimal string: exact in every language.
             */
            readonly expires_at_ns: string | null;
            /**
             * Revoked At Ns
             * @description revoked_at as a decimal string: exact in every language.
             */
            readonly revoked_at_ns: string | null;
        };
        /** MessageIn */
        MessageIn: {
            /**
             * Role
             * @description user or assistant
             * @enum {string}
             */
            role: "user" | "assistant";
            /**
             * Content
             * @description Text, or content parts whose text parts are kept.
             */
            content: string | (string | {
                text: string;
            })[];
            /** Sender */
            sender?: string | null;
            /**
             * At
             * @description UTC Unix time in nanoseconds (default: now); at most 5 minutes ahead of the server's clock. Above 2^53: JavaScript cannot hold it as a number; send at_ns.
             */
            at?: number | null;
            /**
             * At Ns
             * @description at as a string of decimal digits (either or both; both must agree).
             */
            at_ns?: string | null;
            /** Meta */
            meta?: {
                [key: string]: unknown;
            } | null;
            /**
             * Key
             * @description Idempotency key: a message stored under it before is returned instead of stored again (409 when it named another message).
             */
            key?: string | null;
        };
        /** MessageListOut */
        MessageListOut: {
            /** Messages */
            messages: components["schemas"]["MessageOut"][];
        };
        /** MessageOut */
        MessageOut: {
            /** Id */
            id: number;
            /** Session */
            session: string;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant";
            /** Content */
            content: string;
            /**
             * At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            at: number;
            /**
             * At Iso
             * @description at in ISO 8601 (UTC, microseconds).
             */
            at_iso: string;
            /** Sender */
            sender: string | null;
            /** Meta */
            meta: {
                [key: string]: unknown;
            } | null;
            /**
             * At Ns
             * @description at as a decimal string: exact in every language.
             */
            readonly at_ns: string;
        };
        /** MessagePageOut */
        MessagePageOut: {
            /**
             * Messages
             * @description Newest first.
             */
            messages: components["schemas"]["MessageOut"][];
            /**
             * Next Before Id
             * @description Pass as before_id for the next page; null on the last one.
             */
            next_before_id: number | null;
        };
        /** NewKeyOut */
        NewKeyOut: {
            /** Id */
            id: string;
            /** Tenant */
            tenant: string;
            /** Name */
            name: string | null;
            /** Scopes */
            scopes: string[];
            /**
             * Created At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            created_at: number;
            /** Created At Iso */
            created_at_iso: string;
            /**
             * Expires At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            expires_at: number | null;
            /** Expires At Iso */
            expires_at_iso: string | null;
            /**
             * Revoked At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            revoked_at: number | null;
            /** Revoked At Iso */
            revoked_at_iso: string | null;
            /** Rate Per Second */
            rate_per_second: number | null;
            /** Messages Per Day */
            messages_per_day: number | null;
            /** Stored Bytes */
            stored_bytes: number | null;
            /**
             * Key
             * @description The key itself: shown only now, never again.
             */
            key: string;
            /**
             * Created At Ns
             * @description created_at as a decimal string: exact in every language.
             */
            readonly created_at_ns: string;
            /**
             * Expires At Ns
             * @description expires_at as a decimal string: exact in every language.
             */
            readonly expires_at_ns: string | null;
            /**
             * Revoked At Ns
             * @description revoked_at as a decimal string: exact in every language.
             */
            readonly revoked_at_ns: string | null;
        };
        /** ReadOut */
        ReadOut: {
            message: components["schemas"]["MessageOut"];
            /** Before */
            before: components["schemas"]["MessageOut"][];
            /** After */
            after: components["schemas"]["MessageOut"][];
        };
        /** RemovedOut */
        RemovedOut: {
            /** Removed */
            removed: boolean;
        };
        /** ResetIn */
        ResetIn: {
            /**
             * Mode
             * @description summary (keep the summary) or all
             * @default summary
             * @enum {string}
             */
            mode: "summary" | "all";
        };
        /** ResetOut */
        ResetOut: {
            /** Reset */
            reset: boolean;
        };
        /** SearchOut */
        SearchOut: {
            /** Hits */
            hits: components["schemas"]["HitOut"][];
            /**
             * Status
             * @enum {string}
             */
            status: "ok" | "no_match" | "indexing_pending";
        };
        /** SessionListOut */
        SessionListOut: {
            /** Sessions */
            sessions: components["schemas"]["SessionOut"][];
        };
        /** SessionOut */
        SessionOut: {
            /** Id */
            id: string;
            /** Messages */
            messages: number;
            /**
             * First At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            first_at: number | null;
            /**
             * Last At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            last_at: number | null;
            /** Has Summary */
            has_summary: boolean;
            /**
             * First At Ns
             * @description first_at as a decimal string: exact in every language.
             */
            readonly first_at_ns: string | null;
            /**
             * Last At Ns
             * @description last_at as a decimal string: exact in every language.
             */
            readonly last_at_ns: string | null;
        };
        /** StatsOut */
        StatsOut: {
            /** Session */
            session: string;
            /** Messages */
            messages: number;
            /** Hot Messages */
            hot_messages: number;
            /** Hot Bytes */
            hot_bytes: number;
            /** Cutoff */
            cutoff: number;
            /** Cursor */
            cursor: number | null;
            /** Index Backlog */
            index_backlog: number;
            /** Summary Kind */
            summary_kind: string | null;
            /** Summary Tokens In */
            summary_tokens_in: number;
            /** Summary Tokens Out */
            summary_tokens_out: number;
            /** Last Error */
            last_error: string | null;
            /** Extra */
            extra: {
                [key: string]: unknown;
            };
            /**
             * Tenant Backlog
             * @description The whole tenant's messages still waiting to be embedded (this session's included).
             */
            tenant_backlog: number;
        };
        /** StatusOut */
        StatusOut: {
            /** Status */
            status: string;
        };
        /** SummarizeOut */
        SummarizeOut: {
            /** Summary */
            summary: {
                [key: string]: unknown;
            } | null;
        };
        /** SummaryOut */
        SummaryOut: {
            /** Summary */
            summary: {
                [key: string]: unknown;
            } | null;
            /** Kind */
            kind: string | null;
            /** Cursor */
            cursor: number | null;
            /** Tokens In */
            tokens_in: number;
            /** Tokens Out */
            tokens_out: number;
            /**
             * Created At
             * @description UTC Unix time in nanoseconds. Above 2^53, so a JavaScript JSON.parse rounds it: read the _ns string there.
             */
            created_at: number | null;
            /**
             * Created At Ns
             * @description created_at as a decimal string: exact in every language.
             */
            readonly created_at_ns: string | null;
        };
        /** TenantStatsOut */
        TenantStatsOut: {
            /** Tenant */
            tenant: string;
            /** Sessions */
            sessions: number;
            /** Messages */
            messages: number;
            /**
             * Index Backlog
             * @description Messages still waiting to be embedded for semantic search (0 without an embedder).
             */
            index_backlog: number;
        };
        /** WireMessage */
        WireMessage: {
            /** Role */
            role: string;
            /** Content */
            content: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz_healthz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOut"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    readyz_readyz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOut"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_messages_v1_sessions__session__messages_get: {
        parameters: {
            query?: {
                before_id?: number | null;
                /** @description How many (default and maximum: the server's search settings). */
                limit?: number | null;
                /** @description How far back: 1d, 7d, 1m (30 days), 1y or all. */
                time_range?: "1d" | "7d" | "1m" | "1y" | "all";
            };
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessagePageOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    add_message_v1_sessions__session__messages_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description An idempotency key already names a different message */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not declared as JSON (Content-Type: application/json) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    add_messages_v1_sessions__session__messages_batch_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageListOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description An idempotency key already names a different message */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not declared as JSON (Content-Type: application/json) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    context_v1_sessions__session__context_get: {
        parameters: {
            query?: {
                /** @description The new user input: the parts of the summary relevant to it are picked (with a decision model). */
                query?: string | null;
                format?: "plain" | "openai" | "anthropic";
            };
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The model provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    search_session_v1_sessions__session__search_get: {
        parameters: {
            query: {
                /** @description What to look for (words, a phrase, any language). */
                q: string;
                /** @description keyword, semantic or hybrid (default: hybrid with an embedder, else keyword). */
                match?: "keyword" | "semantic" | "hybrid";
                /** @description How far back: 1d, 7d, 1m (30 days), 1y or all. */
                time_range?: "1d" | "7d" | "1m" | "1y" | "all";
                /** @description How many (default and maximum: the server's search settings). */
                limit?: number | null;
                /** @description Score floor of every semantic or hybrid hit (-1: none). Unset, the best hit needs the default floor and the others a share of its score. */
                min_score?: number | null;
                /** @description Leave out what the context window shows. */
                exclude_window?: boolean;
            };
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The model provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    search_tenant_v1_search_get: {
        parameters: {
            query: {
                /** @description What to look for (words, a phrase, any language). */
                q: string;
                /** @description keyword, semantic or hybrid (default: hybrid with an embedder, else keyword). */
                match?: "keyword" | "semantic" | "hybrid";
                /** @description How far back: 1d, 7d, 1m (30 days), 1y or all. */
                time_range?: "1d" | "7d" | "1m" | "1y" | "all";
                /** @description How many (default and maximum: the server's search settings). */
                limit?: number | null;
                /** @description Score floor of every semantic or hybrid hit (-1: none). Unset, the best hit needs the default floor and the others a share of its score. */
                min_score?: number | null;
                /** @description Leave out what the context window shows. */
                exclude_window?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The model provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    read_message_v1_messages__message_id__get: {
        parameters: {
            query?: {
                /** @description Earlier neighbours (0-50). */
                before?: number | null;
                /** @description Later neighbours (0-50). */
                after?: number | null;
            };
            header?: never;
            path: {
                /** @description A message id. */
                message_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReadOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    forget_message_v1_messages__message_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A message id. */
                message_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_sessions_v1_sessions_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionListOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    tenant_stats_v1_stats_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantStatsOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    session_stats_v1_sessions__session__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatsOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    remove_v1_sessions__session__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RemovedOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_summary_v1_sessions__session__summary_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SummaryOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    summarize_v1_sessions__session__summarize_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SummarizeOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The model provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    reset_v1_sessions__session__reset_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ResetIn"] | null;
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResetOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not declared as JSON (Content-Type: application/json) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The model provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    export_v1_sessions__session__export_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One JSON record a line: the messages, oldest first, then the summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    import__v1_sessions__session__import_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id: 1-128 characters of A-Z a-z 0-9 . _ : @ -, not '.' or '..'. */
                session: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-ndjson": {
                    /** @enum {string} */
                    type: "message";
                    /** @enum {string} */
                    role: "user" | "assistant";
                    content: string;
                    sender?: string;
                    key?: string;
                };
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description An idempotency key already names a different message */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_errors_v1_errors_get: {
        parameters: {
            query?: {
                /** @description Only records of this tool. */
                tool?: string | null;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorListOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    write_error_v1_errors_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ErrorIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorRecordOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not declared as JSON (Content-Type: application/json) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    search_errors_v1_errors_search_get: {
        parameters: {
            query: {
                /** @description Words, a phrase or an error message. */
                q: string;
                /** @description Only records of this tool. */
                tool?: string | null;
                limit?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorListOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    hint_v1_errors_hint_get: {
        parameters: {
            query: {
                /** @description The tool that failed. */
                tool: string;
                /** @description Its error text. */
                error: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HintOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    read_error_v1_errors__record_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, or a unique prefix of 8+ of its hex characters. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorRecordOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_error_v1_errors__record_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A record id, or a unique prefix of 8+ of its hex characters. */
                record_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_keys_v1_admin_keys_get: {
        parameters: {
            query?: {
                /** @description Only keys of this tenant (or prefix). */
                tenant?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyListOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    create_key_v1_admin_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KeyIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewKeyOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body or a field of it is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    revoke_key_v1_admin_keys__key_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyOut"];
                };
            };
            /** @description No valid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's scopes or tenants do not allow this request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such session, message or record in this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Invalid input (the field is named) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key's request rate or the tenant's quota is used up: wait Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database failed (store_error) or the service did (internal_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not ready, or shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The disk holding the database is full (disk_full): nothing of the request was stored; the same request works once space is freed */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
