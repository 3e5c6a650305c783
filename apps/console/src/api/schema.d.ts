// Generated from GET /docs-json by `npm run console:api` (test/console/openapi-types.e2e-spec.ts). Do not edit.
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['HealthController_check'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['MetricsController_scrape'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['TenantsController_list'];
    put?: never;
    post: operations['TenantsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/tenants/{id}/limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's effective rate limits per route class (its overrides over the configured defaults) */
    get: operations['TenantsController_limits'];
    /** Override rate limits of one tenant: any subset of {chat, route, lookup, ingest, admin} × {perMinute, perKeyPerMinute}; null returns to the default */
    put: operations['TenantsController_setLimits'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's keys, revoked ones included, newest first (never their secrets) */
    get: operations['ApiKeysController_list'];
    put?: never;
    /** Create a named key with a role (client, operator, viewer), optional expiry and allowed origins; the secret is shown only now */
    post: operations['ApiKeysController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api-keys/current': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who is calling: the key’s id, name, role and tenant (operator and viewer keys; the platform admin gets role admin) */
    get: operations['ApiKeysController_current'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke a key: refused at once on this replica and within a second on every other (idempotent) */
    delete: operations['ApiKeysController_revoke'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/api-keys/{id}/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A new secret for the key; the current one keeps authenticating for gracePeriodSeconds (default 86400, 0–604800) */
    post: operations['ApiKeysController_rotate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Writes by operators and the platform admin, newest first: who, what, when, request id and a summary; filters and a cursor */
    get: operations['AuditController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/audit/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The filtered log as CSV (newest first, at most 50000 rows; formulas defused) */
    get: operations['AuditController_export'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/audit/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How long the tenant's log is kept */
    get: operations['AuditController_settings'];
    /** Set how long the tenant's log is kept (1–3650 days); older entries are deleted within the hour */
    put: operations['AuditController_setSettings'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['SessionsController_ingest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sessions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['SessionsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/jobs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['JobsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/jobs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['JobsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/coverage/report': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['CoverageController_report'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/coverage/gaps': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['CoverageController_gaps'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/coverage/re-evaluate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['CoverageController_reEvaluate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List documents (newest first, cursor pagination, optional domain filter) */
    get: operations['KnowledgeController_list'];
    put?: never;
    /** Upsert a document by filePath (chunk + embed; replaces its chunks atomically) */
    post: operations['KnowledgeController_upsert'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents/bulk': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Import many documents: JSON array, {documents: [...]}, or NDJSON (application/x-ndjson); per-item results */
    post: operations['KnowledgeController_bulk'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['KnowledgeController_get'];
    put?: never;
    post?: never;
    delete: operations['KnowledgeController_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/config': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Effective retrieval settings (retrieval.normalization.*, memory TTL, chunking) */
    get: operations['KnowledgeController_getConfig'];
    /** Merge a partial override into the tenant retrieval settings; returns the effective settings */
    put: operations['KnowledgeController_putConfig'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/grading': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The grade calibration in force: built-in, or fitted for this tenant and embedder (docs/retrieval.md) */
    get: operations['KnowledgeController_getGrading'];
    put?: never;
    post?: never;
    /** Drop the fitted calibration: back to the built-in one */
    delete: operations['KnowledgeController_resetGrading'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/grading/fit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Fit the grade calibration from labelled questions (query → filePath, or null when unanswerable); applies it unless dryRun */
    post: operations['KnowledgeController_fitGrading'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ai/knowledge/lookup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Graded knowledge lookup (hybrid: exact L0 + BM25 + vector, fused and calibrated) with per-session action memory and retrieval confidence */
    post: operations['KnowledgeController_lookup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/imports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import many documents as a resumable job (up to 10,000 per request, 64 MiB): JSON array, {documents: [...]}, or NDJSON
     * @description Validates every item at once (refused items are listed), stores the rest and answers 202; the `retrieval.import` job writes them in batches. Follow it with GET /admin/knowledge/imports/:id.
     */
    post: operations['KnowledgeImportController_start'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/imports/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Progress and outcome of an import: counts per status, the first 100 failures */
    get: operations['KnowledgeImportController_status'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/files': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload files (PDF, DOCX, HTML, Markdown, text, CSV/XLSX FAQ sheets) into the knowledge base
     * @description multipart/form-data: one or more `file` parts, optional `domain`, `keywords` (comma-separated) and `metadata` (a JSON object). Each file is checked at the door (size, empty, type sniffed from its bytes); accepted files are stored and the `retrieval.import` job extracts, chunks (by headings, with page and section), embeds and indexes them: follow it with GET /admin/knowledge/imports/:id. The same file name replaces its document; identical bytes are `unchanged`. A request whose every file is refused stores nothing (415/413/400 naming each file).
     */
    post: operations['KnowledgeFilesController_upload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents/{id}/file': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download the file a document was made from, as it was uploaded */
    get: operations['KnowledgeFilesController_download'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents/{id}/chunks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The document's chunks in the current embedding space, in order (cursor pagination) */
    get: operations['KnowledgeChunksController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/knowledge/documents/{id}/chunks/{chunkIndex}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Correct a chunk's text (re-embedded and re-indexed in one transaction) or disable/re-enable it */
    patch: operations['KnowledgeChunksController_edit'];
    trace?: never;
  };
  '/admin/sessions/{id}/evaluate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['EvaluationController_evaluate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/feedback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['FeedbackController_submit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/bad-cases': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ReviewController_listBadCases'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/bad-cases/report': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ReviewController_badCaseReport'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/bad-cases/{sessionId}/accept-example': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Label a bad case with its correct intent and append its question to the semantic examples of that intent's enabled rule (highest priority); the router retrains off the request thread */
    post: operations['ReviewController_acceptExample'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/bad-cases/{sessionId}/review': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Review a bad case: set its correct intent and/or knowledge document, a note, and resolve or reopen it. Partial: an absent field is kept, null clears it */
    put: operations['ReviewController_review'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/case-library/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The case-library answer threshold of the tenant (default 0.85) and the version of its answerable cases */
    get: operations['ReviewController_settings'];
    /** Set the case-library answer threshold, in (0, 1] (null = the default); applies to the next chat message */
    put: operations['ReviewController_setSettings'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/case-library': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ReviewController_listCases'];
    put?: never;
    post: operations['ReviewController_createCase'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/case-library/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ReviewController_getCase'];
    put?: never;
    post?: never;
    /** Retract a case (AUTO or MANUAL): no longer listed, and no longer answers chat messages from the next one */
    delete: operations['ReviewController_retractCase'];
    options?: never;
    head?: never;
    patch: operations['ReviewController_updateCase'];
    trace?: never;
  };
  '/admin/monitoring/conversations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['MonitoringController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/monitoring/conversations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['MonitoringController_detail'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/monitoring/stats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['MonitoringController_stats'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/monitoring/stats/rebuild': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['MonitoringController_rebuildStats'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List intent rules (newest first, cursor pagination, optional intent filter) */
    get: operations['IntentAdminController_list'];
    put?: never;
    /** Create an intent rule (validated; semanticExamples are embedded once, here) */
    post: operations['IntentAdminController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-rules/bulk': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create many intent rules at once (≤ 500, all or none; one retrain of the router instead of one per rule) */
    post: operations['IntentAdminController_createMany'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-rules/evaluate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Route labelled examples [{text, intent|null}] with the tenant rules → accuracy, per-intent P/R/F1, confusions, OOS recall, clarify/judge rates, decision reasons */
    post: operations['IntentAdminController_evaluate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-rules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['IntentAdminController_get'];
    put?: never;
    post?: never;
    delete: operations['IntentAdminController_delete'];
    options?: never;
    head?: never;
    /** Update any subset of a rule (null clears description, reply, intentVector); re-validated as a whole */
    patch: operations['IntentAdminController_update'];
    trace?: never;
  };
  '/admin/intent/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's rules version, the version of the classifier serving on this API process, the training under way (state, progress) and the last training's duration */
    get: operations['IntentAdminController_status'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-config': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Effective intent routing config (defaults overlaid with the tenant override) */
    get: operations['IntentAdminController_getConfig'];
    /** Merge a partial override (unknown keys and out-of-range values → 400); returns the effective config */
    put: operations['IntentAdminController_putConfig'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ai/intent/route': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Hybrid intent routing (rules + semantic + LLM judge when triggered) → RouteResult with the full routeTrace */
    post: operations['IntentRouteController_route'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ai/chat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Answer one user message: route → clarify / rule answer / hand-off / knowledge answer, with confidence and sources
     * @description Creates (or continues) a conversation and records one session with its route trace, tool invocations, self-evaluation and coverage decision. Knowledge answers are extractive without an LLM, or come from a tool-calling agent (`lookup_knowledge`, at most CHAT_MAX_STEPS model calls) when one is configured; an LLM failure or timeout falls back to the extractive answer (trace event `fallback-triggered`). Confidence policy: high → answer; medium → answer with a caveat; low or INSUFFICIENT → "not found, contact support" and `shouldTransfer`; PRECISE / HIGHLY_RELEVANT lookups are always answered, without a caveat. Confidences: `routingConfidence` (intent router), `retrievalConfidence` (knowledge lookup, null without one), `answerConfidence` (self-evaluation, null until stored); `confidence` (compatibility): the retrieval confidence of a knowledge answer, 0 for the not-found exit and a failed run, the routing confidence for replies without a knowledge search. A run that fails after the session started still answers 200 with a polite reply and the `sessionId` (session status FAILED, error recorded). With `Accept: text/event-stream` or `"stream": true` the answer is server-sent events: `route`, `lookup` (per lookup), `delta` (the reply in pieces), then `done` (this JSON body) or `error` (the error shape); errors before the first event answer as JSON; a client that disconnects ends the turn (session FAILED, error `client_disconnected`). See docs/chat-clients.md.
     */
    post: operations['ChatController_executeChat'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** OpenAI-compatible model list: `arbiter` (any `model` value is accepted by /v1/chat/completions) */
    get: operations['OpenAiCompatController_listModels'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/chat/completions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * OpenAI-compatible chat completion: one Arbiter chat turn (POST /ai/chat), streamed or not
     * @description The last message (role user) is the turn; earlier user/assistant messages are its history, which the model sees when one is configured (offline answers use the last message only). `X-Conversation-Id` continues a conversation of this tenant and is returned on every answer. The body is a `chat.completion` (or, with `stream: true`, `chat.completion.chunk` data lines ending with `data: [DONE]`) with Arbiter's fields in the extension object `arbiter` (the body of POST /ai/chat without `reply`: sessionId, conversationId, confidences, references, shouldTransfer, needClarify, candidates, intent, caseLibrary), on the body or the last chunk. Errors use OpenAI's shape `{error: {message, type, code, param, requestId}}`. See docs/chat-clients.md.
     */
    post: operations['OpenAiCompatController_createCompletion'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/decisions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Logged routing decisions of POST /ai/intent/route and chat turns (newest first, cursor pagination; filters: from/to, intent, reason, needClarify, source). Written in batches ~100 ms after the decision (docs/decision-log.md). */
    get: operations['DecisionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/decisions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['DecisionsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/decisions/{id}/label': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set the correct intent (null: out of scope) of a logged decision; the label joins the tenant's review labelled set */
    put: operations['DecisionsController_label'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/decision-settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Decision-log settings of the tenant (retention; default 30 days) */
    get: operations['DecisionsController_settings'];
    /** Set the decision-log retention (1–3650 days); the daily learning.decision-log-cleanup job deletes older decisions */
    put: operations['DecisionsController_setSettings'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/labelled-sets/snapshot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Take a labelled set (the next version of `name`) from labels already given: `review` (labels on logged decisions), `bad_cases` (the correct intent set on a bad case), `case_library` (verified AUTO cases, labelled with the intent their session was routed to). The first source listed wins for a repeated message; labels naming intents without a rule are left out and listed. */
    post: operations['LabelledSetsController_snapshot'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/labelled-sets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List labelled sets and their versions (newest first, cursor pagination, optional name filter) */
    get: operations['LabelledSetsController_list'];
    put?: never;
    /** Upload a labelled set: JSON {name, examples: [{text, intent|null}]} or JSONL (application/x-ndjson, one {"text", "intent"} per line, ?name=). intent null = out of scope. Each upload of a name is its next version. All or nothing. */
    post: operations['LabelledSetsController_upload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/labelled-sets/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One labelled set version with a page of its examples (limit/cursor page the examples) */
    get: operations['LabelledSetsController_get'];
    put?: never;
    post?: never;
    /** Delete one labelled set version with its examples */
    delete: operations['LabelledSetsController_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-config/fit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Fit the routing thresholds, clarify band, fusion weights and aggregation on a labelled set (cross-validated; docs/learning.md). Answers 202 with the fit; GET /admin/intent-config/fits/:id gives the proposal and before/after metrics. Nothing is applied: PUT /admin/intent-config with the proposedConfig and If-Match: "<configVersion>". */
    post: operations['IntentFitController_request'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-config/fits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fits of this tenant, newest first (cursor pagination) */
    get: operations['IntentFitController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent-config/fits/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One fit: status, and once succeeded the proposed config, before/after/cross-validated metrics and reliability */
    get: operations['IntentFitController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Re-route logged decisions (a time window or ids) under a candidate config and/or a draft rule set, with no side effects (docs/learning.md "Replay"). 202 + a resumable job; an empty scope answers 200 at once with zero counts. */
    post: operations['IntentReplayController_request'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/replays': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Replays of this tenant, newest first (cursor pagination) */
    get: operations['IntentReplayController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/intent/replays/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One replay: status, progress via its job, and once succeeded the report */
    get: operations['IntentReplayController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhooksController_list'];
    put?: never;
    post: operations['WebhooksController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhooksController_get'];
    put?: never;
    post?: never;
    delete: operations['WebhooksController_remove'];
    options?: never;
    head?: never;
    patch: operations['WebhooksController_update'];
    trace?: never;
  };
  '/admin/webhooks/{id}/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['WebhooksController_rotate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhooksController_deliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['WebhooksController_redeliver'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/console/overview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ConsoleController_overview'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    CreateTenantDto: {
      /**
       * @description Tenant name (letters, digits, - _ . and spaces), stored trimmed and NFKC-normalized; unique case-insensitively
       * @example acme-robotics
       */
      name: string;
    };
    TenantApiKeysDto: {
      /** @description Key for the web client and bots (chat, feedback, ingest, lookup, route). Shown once. */
      client: string;
      /** @description Key for operators (everything under /admin of this tenant, plus client endpoints). Shown once. */
      operator: string;
    };
    CreatedTenantDto: {
      /** Format: uuid */
      id: string;
      name: string;
      apiKeys: components['schemas']['TenantApiKeysDto'];
    };
    TenantDto: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @example UTC */
      timeZone: string;
      createdAt: string;
    };
    ClassLimitsDto: {
      /** @description Requests per minute for the whole tenant (0 = unlimited) */
      perMinute: number;
      /** @description Requests per minute for each key (0 = unlimited) */
      perKeyPerMinute: number;
    };
    EffectiveLimitsDto: {
      chat: components['schemas']['ClassLimitsDto'];
      route: components['schemas']['ClassLimitsDto'];
      lookup: components['schemas']['ClassLimitsDto'];
      ingest: components['schemas']['ClassLimitsDto'];
      admin: components['schemas']['ClassLimitsDto'];
    };
    ClassLimitChangeDto: {
      /** @description Requests per minute for the whole tenant; 0 = unlimited; null = the configured default */
      perMinute?: number | null;
      /** @description Requests per minute for each key; 0 = unlimited; null = the configured default */
      perKeyPerMinute?: number | null;
    };
    TenantLimitsChangeDto: {
      chat?: components['schemas']['ClassLimitChangeDto'];
      route?: components['schemas']['ClassLimitChangeDto'];
      lookup?: components['schemas']['ClassLimitChangeDto'];
      ingest?: components['schemas']['ClassLimitChangeDto'];
      admin?: components['schemas']['ClassLimitChangeDto'];
    };
    CreateApiKeyDto: {
      /**
       * @description Who or what uses the key: 1–100 characters in any script, stored trimmed and NFKC-normalized
       * @example 客服网页组件 widget
       */
      name: string;
      /**
       * @description client (chat, feedback, lookup, route), operator (the tenant’s /admin), viewer (read-only operator, for the console)
       * @enum {string}
       */
      role: 'client' | 'operator' | 'viewer';
      /**
       * @description When the key stops authenticating (ISO 8601, in the future); none = never
       * @example 2027-06-30T00:00:00Z
       */
      expiresAt?: string;
      /**
       * @description Origins (exact scheme://host[:port]) a browser may send this key from; a request with another Origin gets 403 ORIGIN_NOT_ALLOWED; empty or absent = any. At most 50.
       * @example [
       *       "https://support.example.com"
       *     ]
       */
      allowedOrigins?: string[];
    };
    IssuedApiKeyDto: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @enum {string} */
      role: 'client' | 'operator' | 'viewer';
      /**
       * @description The first characters of the secret, to recognise it
       * @example ak_cli_Xy3d
       */
      prefix: string;
      /** @enum {string} */
      status: 'active' | 'expired' | 'revoked';
      createdAt: string;
      /** @description Recorded in batches, about once a minute */
      lastUsedAt: string | null;
      expiresAt: string | null;
      revokedAt: string | null;
      allowedOrigins: string[];
      /** @description Until when the secret before the last rotation still authenticates */
      previousSecretValidUntil: string | null;
      /** @description The secret: shown only in this answer (stored hashed) */
      key: string;
    };
    ApiKeyDto: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @enum {string} */
      role: 'client' | 'operator' | 'viewer';
      /**
       * @description The first characters of the secret, to recognise it
       * @example ak_cli_Xy3d
       */
      prefix: string;
      /** @enum {string} */
      status: 'active' | 'expired' | 'revoked';
      createdAt: string;
      /** @description Recorded in batches, about once a minute */
      lastUsedAt: string | null;
      expiresAt: string | null;
      revokedAt: string | null;
      allowedOrigins: string[];
      /** @description Until when the secret before the last rotation still authenticates */
      previousSecretValidUntil: string | null;
    };
    CurrentCallerDto: {
      /**
       * Format: uuid
       * @description The key's id; null for the platform admin
       */
      id: string | null;
      /** @description The key's name; null for the platform admin */
      name: string | null;
      /**
       * @description The key's role, or admin for the platform ADMIN_TOKEN
       * @enum {string}
       */
      role: 'client' | 'operator' | 'viewer' | 'admin';
      /**
       * Format: uuid
       * @description The key's tenant; for the platform admin the ?tenantId= it named, else null
       */
      tenantId: string | null;
    };
    RotateApiKeyDto: {
      /**
       * @description How long the current secret keeps authenticating beside the new one (0: it stops now)
       * @default 86400
       */
      gracePeriodSeconds: number;
    };
    AuditActorDto: {
      /** @enum {string} */
      kind: 'api_key' | 'platform_admin' | 'system';
      /** Format: uuid */
      keyId?: string;
      /** @description The key's name */
      name?: string;
    };
    AuditEntryDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      tenantId: string;
      occurredAt: string;
      actor: components['schemas']['AuditActorDto'];
      /** @example create */
      action: string;
      /** @example api_key */
      resourceType: string;
      resourceId: string | null;
      /** @description The intent, the file path, the key name */
      label: string | null;
      requestId: string | null;
      /** @description before/after for settings, counts for bulk work; never a secret */
      summary: {
        [key: string]: unknown;
      };
    };
    AuditPageDto: {
      items: components['schemas']['AuditEntryDto'][];
      nextCursor: string | null;
    };
    AuditSettingsDto: {
      /** @description Days entries are kept */
      retentionDays: number;
    };
    ReferenceDto: {
      /** @description Knowledge document id, when the agent used Arbiter's knowledge base */
      documentId?: string;
      /** @example manuals/servo-alarm.md */
      filePath?: string;
      title?: string;
      /**
       * @description Relevance score of the reference (0..1 similarity)
       * @example 0.82
       */
      score: number;
    };
    MediaDto: {
      /**
       * @description Trimmed and case-folded before validation (" IMAGE " is stored as "image"); other values are rejected
       * @enum {string}
       */
      type: 'image' | 'audio' | 'video' | 'file';
      /** @example https://cdn.example.com/u/123.png */
      url?: string;
    };
    IngestSessionDto: {
      /**
       * Format: uuid
       * @description Continue this conversation; omitted → a new conversation
       */
      conversationId?: string;
      /**
       * @default web
       * @example web
       */
      channel: string;
      /** @description Your reference for the end user (never shown to other tenants) */
      userRef?: string;
      /** @description The user message */
      query: string;
      /** @description The agent's final answer */
      answer?: string;
      /** @enum {string} */
      status: 'SUCCESS' | 'FAILED';
      /** @default 0 */
      stepCount: number;
      /** @default 0 */
      toolCallCount: number;
      references?: components['schemas']['ReferenceDto'][];
      media?: components['schemas']['MediaDto'][];
      /** @description Whether the agent searched the knowledge base (default: true when references are given) */
      knowledgeSearched?: boolean;
      /** @description End-to-end latency of the agent run in milliseconds */
      latencyMs?: number;
    };
    SelfEvaluationDto: {
      confidence: number;
      reasoning: string;
      /** @enum {string} */
      source: 'llm' | 'rule';
      evaluatedAt: string;
      model?: string;
    };
    CoverageSummaryDto: {
      /** @enum {string} */
      verdict: 'covered' | 'uncovered';
      /** @example covered_has_references */
      reasonCode: string;
      /** @example v1 */
      evaluatorVersion: string;
      referenceCount: number;
      topScore: number;
    };
    SessionViewDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      conversationId: string;
      channel: string;
      query: string;
      answer: string | null;
      /**
       * @description Lifecycle and review state: BAD_CASE when the user marked the answer not useful (see `outcome` for how the run ended)
       * @enum {string}
       */
      status: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'BAD_CASE';
      /**
       * @description How the agent run ended, unchanged by feedback: a FAILED run marked not useful is status BAD_CASE, outcome FAILED (self-evaluation 0, no coverage decision). Null while unfinished.
       * @enum {string|null}
       */
      outcome: 'SUCCESS' | 'FAILED' | null;
      intent: string | null;
      stepCount: number;
      toolCallCount: number;
      references: components['schemas']['ReferenceDto'][];
      media: components['schemas']['MediaDto'][];
      knowledgeSearched: boolean;
      selfEvaluation: components['schemas']['SelfEvaluationDto'] | null;
      /** @enum {string|null} */
      feedback: 'useful' | 'not_useful' | null;
      coverage: components['schemas']['CoverageSummaryDto'] | null;
      latencyMs: number | null;
      createdAt: string;
      updatedAt: string;
    };
    JobRunDto: {
      /** Format: uuid */
      id: string;
      /** @example coverage.backfill */
      name: string;
      /** @enum {string} */
      trigger: 'manual' | 'schedule' | 'event';
      /** @enum {string} */
      status: 'queued' | 'running' | 'succeeded' | 'failed';
      /** @description Items processed so far */
      processed: number;
      /** @description Items that failed (reported, not fatal) */
      failed: number;
      /** @description Items the run will process when the handler knows it; null otherwise */
      total: number | null;
      attempts: number;
      maxAttempts: number;
      payload: Record<string, never>;
      details?: Record<string, never> | null;
      error: string | null;
      createdAt: string;
      startedAt: string | null;
      finishedAt: string | null;
    };
    JobRunPageDto: {
      items: components['schemas']['JobRunDto'][];
      nextCursor: string | null;
    };
    CoverageChannelCountsDto: {
      total: number;
      covered: number;
      uncovered: number;
      /** @description covered / total (4 decimals); null with no decisions */
      coverageRate: number | null;
      channel: string;
    };
    CoverageDayCountsDto: {
      total: number;
      covered: number;
      uncovered: number;
      /** @description covered / total (4 decimals); null with no decisions */
      coverageRate: number | null;
      /** @example 2026-03-01 */
      date: string;
    };
    CoverageReportDto: {
      total: number;
      covered: number;
      uncovered: number;
      /** @description covered / total (4 decimals); null with no decisions */
      coverageRate: number | null;
      /** @example v1 */
      evaluatorVersion: string;
      /** @example 2026-03-01 */
      from: string;
      /** @example 2026-03-31 */
      to: string;
      /** @example UTC */
      timeZone: string;
      channel: string | null;
      groupBy: ('day' | 'channel' | 'reason' | 'layer')[];
      /** @description Decisions per reason code (covered_has_references, covered_visual_recognition, covered_non_knowledge_response, uncovered_explicit_no_answer, uncovered_no_references), zeros included */
      byReason?: {
        [key: string]: number;
      };
      byChannel?: components['schemas']['CoverageChannelCountsDto'][];
      /** @description Every day of the window, zero days included */
      byDay?: components['schemas']['CoverageDayCountsDto'][];
      /** @description Uncovered sessions per failure layer (routing, retrieval, knowledge_gap, answer_generation), zeros included (docs/learning.md "Failure attribution") */
      byLayer?: {
        [key: string]: number;
      };
      /** @description Uncovered sessions per attribution rule (labelled_other_intent, clarify, no_match_answerable, low_routing_confidence, lookup_failed, low_grade, nothing_relevant, no_references, said_no_answer, run_failed, case_answer_not_useful, configured_reply_not_useful, answer_not_useful, unexplained), zeros included */
      byLayerReason?: {
        [key: string]: number;
      };
    };
    CoverageGapDto: {
      /**
       * @description Grouping key: case/width-folded, whitespace- and punctuation-free
       * @example 如何重置机械臂
       */
      normalizedText: string;
      /** @description The most recent query of the group as written */
      sampleQuery: string | null;
      count: number;
      lastSeenAt: string;
      reasonCodes: (
        'covered_has_references' | 'covered_visual_recognition' | 'covered_non_knowledge_response' | 'uncovered_explicit_no_answer' | 'uncovered_no_references'
      )[];
      /** @description Up to 5 most recent sessions */
      sampleSessionIds: string[];
      /**
       * @description The group's most frequent failure layer (ties: the upstream one)
       * @enum {string|null}
       */
      layer: 'routing' | 'retrieval' | 'knowledge_gap' | 'answer_generation' | null;
      /** @description The group's sessions per failure layer, zeros included */
      byLayer: {
        [key: string]: number;
      };
    };
    CoverageGapsDto: {
      evaluatorVersion: string;
      from: string;
      to: string;
      timeZone: string;
      channel: string | null;
      items: components['schemas']['CoverageGapDto'][];
    };
    ReEvaluateDto: {
      /**
       * @description Evaluator version to backfill; default the current one
       * @example v1
       */
      evaluatorVersion?: string;
      /**
       * @description Only sessions created on or after this day (tenant's time zone); default no bound
       * @example 2026-01-01
       */
      from?: string;
      /**
       * @description Only sessions created on or before this day (tenant's time zone); default no bound
       * @example 2026-03-31
       */
      to?: string;
    };
    JobAcceptedDto: {
      /** @description Follow it with GET /admin/jobs/{jobId} */
      jobId: string;
    };
    UpsertDocumentDto: {
      /** @example robot-arm */
      domain: string;
      /**
       * @description Unique per tenant; re-posting the same path replaces the document.
       * @example robot-arm/reset.md
       */
      filePath: string;
      /** @example 机械臂复位步骤 */
      title: string;
      /** @description Document text (at most 2 MiB of UTF-8). */
      content: string;
      /**
       * @description L0 exact-hit keywords (matched case-insensitively in queries).
       * @example [
       *       "复位",
       *       "reset"
       *     ]
       */
      keywords?: string[];
      metadata?: {
        [key: string]: unknown;
      };
    };
    DocumentSummaryDto: {
      /** Format: uuid */
      id: string;
      /** @example robot-arm */
      domain: string;
      /** @example manuals/servo-alarms.md */
      filePath: string;
      title: string;
      keywords: string[];
      metadata: Record<string, never>;
      /** @description SHA-256 of the content; re-posting identical content is a no-op */
      contentHash: string;
      chunkCount: number;
      version: number;
      contentLength: number;
      /**
       * Format: uuid
       * @description The uploaded file the document was made from (download: GET /admin/knowledge/documents/{id}/file); null for documents posted as JSON
       */
      fileId: string | null;
      /**
       * @description The file's media type, sniffed from its bytes; null for JSON documents
       * @example application/pdf
       */
      mediaType: string | null;
      /** @description Pages of a PDF; null otherwise */
      pageCount: number | null;
      createdAt: string;
      updatedAt: string;
    };
    UpsertResultDto: {
      /** @enum {string} */
      status: 'created' | 'updated' | 'unchanged';
      document: components['schemas']['DocumentSummaryDto'];
    };
    BulkItemErrorDto: {
      code?: string;
      message: string;
      fields?: string[];
    };
    BulkItemResultDto: {
      index: number;
      filePath: string | null;
      /** @enum {string} */
      status: 'created' | 'updated' | 'unchanged' | 'failed';
      documentId?: string;
      chunkCount?: number;
      error?: components['schemas']['BulkItemErrorDto'];
    };
    BulkSummaryDto: {
      created: number;
      updated: number;
      unchanged: number;
      failed: number;
    };
    BulkImportResultDto: {
      results: components['schemas']['BulkItemResultDto'][];
      summary: components['schemas']['BulkSummaryDto'];
    };
    DocumentPageDto: {
      items: components['schemas']['DocumentSummaryDto'][];
      nextCursor: string | null;
    };
    DocumentDetailDto: {
      /** Format: uuid */
      id: string;
      /** @example robot-arm */
      domain: string;
      /** @example manuals/servo-alarms.md */
      filePath: string;
      title: string;
      keywords: string[];
      metadata: Record<string, never>;
      /** @description SHA-256 of the content; re-posting identical content is a no-op */
      contentHash: string;
      chunkCount: number;
      version: number;
      contentLength: number;
      /**
       * Format: uuid
       * @description The uploaded file the document was made from (download: GET /admin/knowledge/documents/{id}/file); null for documents posted as JSON
       */
      fileId: string | null;
      /**
       * @description The file's media type, sniffed from its bytes; null for JSON documents
       * @example application/pdf
       */
      mediaType: string | null;
      /** @description Pages of a PDF; null otherwise */
      pageCount: number | null;
      createdAt: string;
      updatedAt: string;
      content: string;
    };
    NormalizationSettingsDto: {
      /** @example 2 */
      maxL2Distance: number;
      /** @example 0.75 */
      highlyRelevantThreshold: number;
      /** @example 0.5 */
      referenceThreshold: number;
    };
    FusionSettingsDto: {
      /** @example 1 */
      lexicalWeight: number;
      /** @example 1 */
      vectorWeight: number;
      /** @example 0.5 */
      exactWeight: number;
      /** @example 60 */
      rrfK: number;
    };
    RetrievalSettingsViewDto: {
      normalization: components['schemas']['NormalizationSettingsDto'];
      fusion: components['schemas']['FusionSettingsDto'];
      /**
       * @description Whether grades use the built-in calibration or one fitted for this tenant (GET /admin/knowledge/grading)
       * @enum {string}
       */
      calibrationSource: 'default' | 'fitted';
      /** @description The chat's default metadata filter of lookups; {} for none */
      defaultFilter: {
        [key: string]: unknown;
      };
      memoryTtlSeconds: number;
      chunkSize: number;
      chunkOverlap: number;
    };
    RetrievalSettingsDto: {
      /** @example 2 */
      maxL2Distance?: number;
      /**
       * @description Calibrated relevance at or above it: HIGHLY_RELEVANT (PRECISE with an exact hit).
       * @example 0.75
       */
      highlyRelevantThreshold?: number;
      /**
       * @description Calibrated relevance below it: INSUFFICIENT.
       * @example 0.5
       */
      referenceThreshold?: number;
      /**
       * @description Weight of the BM25 ranking in reciprocal rank fusion.
       * @example 1
       */
      lexicalWeight?: number;
      /**
       * @description Weight of the vector ranking in reciprocal rank fusion.
       * @example 1
       */
      vectorWeight?: number;
      /**
       * @description Weight of exact title/keyword (L0) hits in reciprocal rank fusion.
       * @example 0.5
       */
      exactWeight?: number;
      /**
       * @description Reciprocal rank fusion's rank offset k.
       * @example 60
       */
      rrfK?: number;
      /** @example 86400 */
      memoryTtlSeconds?: number;
      /** @example 512 */
      chunkSize?: number;
      /** @example 64 */
      chunkOverlap?: number;
      /**
       * @description The chat's default metadata filter of its lookups (same form as the lookup's `filter`; a chat request's own `filter` replaces it); {} clears it.
       * @example {
       *       "model": [
       *         "RX-200",
       *         "RX-300"
       *       ],
       *       "language": "en"
       *     }
       */
      defaultFilter?: {
        [key: string]: string | number | boolean | (string | number | boolean)[];
      };
    };
    CalibrationCutsDto: {
      /** @description Probability mapped to referenceThreshold */
      reference: number;
      /** @description Probability mapped to highlyRelevantThreshold */
      highlyRelevant: number;
    };
    AnswerabilityModelDto: {
      /** @description Logistic weights in the order of `answerabilityFeatures` */
      weights: number[];
      /** @description The cuts grades are read with */
      cuts: components['schemas']['CalibrationCutsDto'];
    };
    GradingCalibrationDto: {
      /** @description Logistic weights of the ranking model, in the order of `features` */
      weights: number[];
      /** @description Cuts on the ranking probability (they grade only when there is no answerability model) */
      cuts: components['schemas']['CalibrationCutsDto'];
      /** @description Answer-or-refuse model over question–passage agreement (docs/retrieval.md "Answerability"); absent in calibrations fitted before it */
      answerability?: components['schemas']['AnswerabilityModelDto'];
    };
    GradingMetricsDto: {
      lookups: number;
      answerable: number;
      /** @description Share of answerable questions whose top result is right */
      hitAt1: number;
      /** @description Of right top results, the share graded INSUFFICIENT */
      rightInsufficient: number;
      /** @description Of wrong top results (including unanswerable questions), the share graded PRECISE or HIGHLY_RELEVANT */
      wrongAnswered: number;
      /** @description Of wrong top results, the share not graded INSUFFICIENT (PARTIAL included) */
      wrongNotInsufficient: number;
      /** @description Of unanswerable questions, the share graded INSUFFICIENT */
      absentInsufficient: number;
    };
    GradingViewDto: {
      /** @enum {string} */
      source: 'default' | 'fitted';
      /** @description Embedder the calibration applies to */
      embedder: string;
      /** @description The ranking model's features */
      features: string[];
      /** @description The answerability model's features */
      answerabilityFeatures: string[];
      calibration: components['schemas']['GradingCalibrationDto'];
      /** Format: date-time */
      fittedAt: string | null;
      /** @description Metrics of the stored fit on its labelled questions */
      metrics: components['schemas']['GradingMetricsDto'] | null;
    };
    LabelledQueryDto: {
      /** @example 示教器屏幕不亮了 */
      query: string;
      /**
       * @description The document that answers it, or null when the knowledge base has no answer.
       * @example pendant/tp10-black-screen.md
       */
      filePath: string | null;
      /**
       * @description For a document made from a file: the pages (1-based) that answer it, any of them — a result is right when its page range meets one. A document with sections must be labelled with pages or a section (docs/retrieval.md "Fitting the grade").
       * @example [
       *       48,
       *       49
       *     ]
       */
      pages?: number[];
      /**
       * @description For a document made from a file: the heading path of the section that answers it, outermost first; a result is right when its section's path starts with it.
       * @example [
       *       "Chapter 1 GNU/Linux tutorials",
       *       "1.4 The basic Unix-like work environment"
       *     ]
       */
      section?: string[];
    };
    GradeTargetsDto: {
      /**
       * @description Largest share of right top results that may be graded INSUFFICIENT.
       * @default 0.15
       */
      maxRightInsufficient: number;
      /**
       * @description Largest share of wrong top results that may be graded PRECISE or HIGHLY_RELEVANT.
       * @default 0.1
       */
      maxWrongAnswered: number;
    };
    FitGradingDto: {
      /** @description Labelled questions: at least 20 in all, 10 with a filePath and 5 without (no answer in the knowledge base); at most 5000. */
      pairs: components['schemas']['LabelledQueryDto'][];
      targets?: components['schemas']['GradeTargetsDto'];
      /**
       * @description Only report what the fit would change; store nothing.
       * @default false
       */
      dryRun: boolean;
    };
    GradingFitResultDto: {
      /** @description False for a dry run */
      applied: boolean;
      grading: components['schemas']['GradingViewDto'];
      /** @description The calibration in force before, on the same questions */
      before: components['schemas']['GradingMetricsDto'];
      /** @description The fitted calibration, on the same questions (in-sample) */
      after: components['schemas']['GradingMetricsDto'];
      /** @description Candidates learned from */
      samples: number;
    };
    LookupDto: {
      /** @description The agent run (session) this lookup belongs to; its action memory dedups results. */
      sessionId: string;
      /** @example 机械臂无法复位怎么办 */
      query: string;
      /** @description Restrict L0 and L1 to this domain */
      domain?: string;
      /** @default 5 */
      topK: number;
      /** @description Routed intent; its confidenceProfile drives the retrieval confidence */
      intent?: string;
      /**
       * @description Overrides the profile resolved from the intent (default "search")
       * @enum {string}
       */
      confidenceProfile?: 'impact' | 'dependency' | 'search' | 'documentation' | 'complexity' | 'overview' | 'refactor' | 'reference';
      /**
       * @description Metadata filter applied before ranking: {<metadata key>: value | [values]} — a document matches when each key's metadata value equals the value (or one of the values), or is an array holding it. Keys match ^[A-Za-z0-9_.-]{1,64}$, at most 20; values are strings, numbers or booleans. A bad filter is a 400 naming it (details.fields, e.g. filter.model).
       * @example {
       *       "model": [
       *         "RX-200",
       *         "RX-300"
       *       ],
       *       "language": "en"
       *     }
       */
      filter?: {
        [key: string]: string | number | boolean | (string | number | boolean)[];
      };
    };
    LookupResultItemDto: {
      /** Format: uuid */
      documentId: string;
      filePath: string;
      title: string;
      domain: string;
      /** @description The document's best-matching chunk */
      content: string;
      /** @description L2 distance in [0, 2] (L0 hits: 0) */
      distance: number;
      /** @description 1 − min(d, maxL2Distance)/maxL2Distance */
      similarity: number;
      /** @description Calibrated relevance on the same scale as the thresholds: how likely this is the document asked about (lexical and vector evidence) */
      relevance: number;
      /** @description Chunks of the document that matched the query's words; more than one scores the `impact` scenario (docs/spec/evaluation.md §2 发现多处引用) */
      matches: number;
      /**
       * @description L0: the query contains its title or a keyword
       * @enum {string}
       */
      source: 'L0' | 'L1';
      /**
       * @description The uploaded file the document was made from; null for documents posted as JSON. A file may fill several results, one per matching section
       * @example Manual.pdf
       */
      fileName: string | null;
      /**
       * @description 1-based first page of the result's chunk (PDF); null otherwise
       * @example 48
       */
      page: number | null;
      /**
       * @description 1-based last page of the chunk (PDF); null otherwise
       * @example 48
       */
      pageEnd: number | null;
      /**
       * @description The chunk's section: its heading path, outermost first; null without one
       * @example [
       *       "1 Getting started",
       *       "1.4 Configuration",
       *       "1.4.7 Setting a default editor"
       *     ]
       */
      section: string[] | null;
    };
    ConfidenceComponentsDto: {
      /** @description min(results / 5, 1) · 0.4 */
      countScore: number;
      /** @description mean relevance · 0.4 (0 without results) */
      qualityScore: number;
      /** @description 0.2 when the profile's scenario holds */
      scenarioScore: number;
    };
    RetrievalConfidenceDto: {
      score: number;
      /** @enum {string} */
      level: 'high' | 'medium' | 'low';
      /**
       * @example [
       *       "找到 3 个相关结果",
       *       "最高相关度 92%"
       *     ]
       */
      reasons: string[];
      /** @enum {string} */
      event: 'high-confidence' | 'medium-confidence' | 'low-confidence';
      /**
       * @description The profile the thresholds came from (null when unknown: 0.6 / 0.3)
       * @enum {string|null}
       */
      profile: 'impact' | 'dependency' | 'search' | 'documentation' | 'complexity' | 'overview' | 'refactor' | 'reference' | null;
      /** @description The parts of the score (countScore + qualityScore + scenarioScore) */
      components: components['schemas']['ConfidenceComponentsDto'];
    };
    LookupResultDto: {
      results: components['schemas']['LookupResultItemDto'][];
      /** @enum {string} */
      relevanceLevel: 'PRECISE' | 'HIGHLY_RELEVANT' | 'REFERENCE';
      /** @enum {string|null} */
      completenessHint: 'PARTIAL' | 'INSUFFICIENT' | null;
      l0MatchCount: number;
      l1TopSimilarity: number | null;
      domain: string | null;
      retrievedDomainsThisSession: string[];
      /** @enum {string|null} */
      dedupReason: 'doc_retrieved' | 'domain_retrieved' | null;
      confidence: components['schemas']['RetrievalConfidenceDto'];
    };
    ImportStartedDto: {
      /** Format: uuid */
      importId: string;
      /**
       * Format: uuid
       * @description The `retrieval.import` job run (GET /admin/jobs/:id)
       */
      jobId: string | null;
      total: number;
      /** @description Valid items queued for writing */
      queued: number;
      /** @description Items refused at once (validation, a filePath repeated in the body) */
      failed: components['schemas']['BulkItemResultDto'][];
    };
    ImportCountsDto: {
      created: number;
      updated: number;
      unchanged: number;
      failed: number;
      /** @description Items not written yet */
      pending: number;
    };
    FileErrorDto: {
      /**
       * @description UNSUPPORTED_TYPE, EMPTY_FILE, FILE_TOO_LARGE, PDF_ENCRYPTED, PDF_NO_TEXT, PDF_CORRUPT, PDF_TOO_MANY_PAGES, DOCX_INVALID, SHEET_INVALID, ARCHIVE_TOO_LARGE, TEXT_UNDECODABLE, SHEET_NO_QUESTION_ANSWER, NO_TEXT, PARSE_TIMEOUT
       * @example PDF_ENCRYPTED
       */
      code: string;
      message: string;
    };
    UploadedFileDto: {
      /** @example manual.pdf */
      fileName: string;
      /**
       * @description Sniffed from the bytes; null when refused before its type was known
       * @example application/pdf
       */
      mediaType: string | null;
      /**
       * @description `refused` at the door (the upload stores nothing of it); `queued` until the import job reads it; then its outcome
       * @enum {string}
       */
      status: 'queued' | 'refused' | 'created' | 'updated' | 'unchanged' | 'failed';
      /**
       * Format: uuid
       * @description The document made from the file (an FAQ sheet: its first row)
       */
      documentId?: string;
      error?: components['schemas']['FileErrorDto'];
    };
    ImportStatusDto: {
      /** Format: uuid */
      importId: string;
      /** Format: uuid */
      jobId: string | null;
      /**
       * @description The job run's status; `succeeded` once every item has an outcome
       * @enum {string}
       */
      status: 'queued' | 'running' | 'succeeded' | 'failed';
      total: number;
      /** @description Items with an outcome */
      done: number;
      counts: components['schemas']['ImportCountsDto'];
      /** @description The first 100 failed items, in body order */
      failures: components['schemas']['BulkItemResultDto'][];
      /** @description An import of uploaded files: every file with its outcome, in upload order */
      files?: components['schemas']['UploadedFileDto'][];
      createdAt: string;
    };
    UploadStartedDto: {
      /**
       * Format: uuid
       * @description Follow it with GET /admin/knowledge/imports/:id
       */
      importId: string;
      /**
       * Format: uuid
       * @description The `retrieval.import` job run (GET /admin/jobs/:id)
       */
      jobId: string | null;
      files: components['schemas']['UploadedFileDto'][];
    };
    ChunkViewDto: {
      /** @description 0-based position in the document */
      chunkIndex: number;
      content: string;
      /** @description 1-based first page (PDF); null otherwise */
      page: number | null;
      /** @description 1-based last page (PDF); null otherwise */
      pageEnd: number | null;
      /** @description Heading path, outermost first; null without one */
      section: string[] | null;
      /** @description A disabled chunk is never returned by a lookup */
      disabled: boolean;
    };
    ChunkPageDto: {
      items: components['schemas']['ChunkViewDto'][];
      nextCursor: string | null;
    };
    EditChunkDto: {
      /** @description The chunk's corrected text: re-embedded and re-indexed in the same transaction */
      content?: string;
      /** @description true: the chunk is never returned by a lookup; false: returned again */
      disabled?: boolean;
    };
    SubmitFeedbackDto: {
      /** Format: uuid */
      sessionId: string;
      /** @enum {string} */
      feedback: 'useful' | 'not_useful';
      /** @description Why (shown in the bad-case review queue) */
      comment?: string;
    };
    FeedbackResultDto: {
      /** Format: uuid */
      sessionId: string;
      /** @enum {string} */
      feedback: 'useful' | 'not_useful';
      /**
       * @description The session status after the feedback (BAD_CASE for not_useful)
       * @enum {string}
       */
      status: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'BAD_CASE';
      /**
       * Format: uuid
       * @description The session's active case-library entry (useful), else null
       */
      caseId: string | null;
    };
    RouteSummaryDto: {
      finalIntent: string | null;
      decisionReason: string | null;
      finalConfidence: number | null;
      /** @description Whether the LLM judge ran */
      llmJudgeTriggered: boolean;
    };
    BadCaseLabelDto: {
      /**
       * @description The correct intent
       * @example fault_diagnosis
       */
      intent: string;
      /**
       * Format: uuid
       * @description The rule whose semantic examples received the question
       */
      ruleId: string | null;
      /** @description The question as appended to the semantic examples */
      example: string | null;
      labelledAt: string;
    };
    BadCaseReviewDocumentDto: {
      /** Format: uuid */
      id: string;
      /** @description The knowledge document's title */
      title: string;
      /** @description The knowledge document's file path (unique in the tenant) */
      filePath: string;
    };
    BadCaseReviewDto: {
      /** @enum {string} */
      status: 'OPEN' | 'RESOLVED';
      /**
       * @description The correct intent
       * @example fault_diagnosis
       */
      intent: string | null;
      /** @description The correct knowledge document; null when none was set or the document has been deleted since */
      document: components['schemas']['BadCaseReviewDocumentDto'] | null;
      note: string | null;
      /** @description When it was resolved (null while OPEN) */
      resolvedAt: string | null;
      /** @description Last change of the review or label */
      updatedAt: string;
    };
    FailureAttributionDto: {
      /**
       * @description The layer the failure is attributed to (docs/learning.md "Failure attribution")
       * @enum {string}
       */
      layer: 'routing' | 'retrieval' | 'knowledge_gap' | 'answer_generation';
      /**
       * @description The attribution rule that decided
       * @enum {string}
       */
      reason:
        | 'labelled_other_intent'
        | 'clarify'
        | 'no_match_answerable'
        | 'low_routing_confidence'
        | 'lookup_failed'
        | 'low_grade'
        | 'nothing_relevant'
        | 'no_references'
        | 'said_no_answer'
        | 'run_failed'
        | 'case_answer_not_useful'
        | 'configured_reply_not_useful'
        | 'answer_not_useful'
        | 'unexplained';
    };
    BadCaseDto: {
      /** Format: uuid */
      sessionId: string;
      /** Format: uuid */
      conversationId: string;
      channel: string;
      query: string;
      answer: string | null;
      /** @description The user's comment */
      comment: string | null;
      intent: string | null;
      selfEvaluation: components['schemas']['SelfEvaluationDto'] | null;
      routeSummary: components['schemas']['RouteSummaryDto'] | null;
      sessionCreatedAt: string;
      /** @description When the user marked it not useful */
      markedAt: string;
      /** @description The correct intent an operator put on it (accept-example, or the review), else null; ruleId/example: the last accept-example */
      label: components['schemas']['BadCaseLabelDto'] | null;
      /** @description Its review (correct intent and document, note, OPEN/RESOLVED); null when no operator has labelled or reviewed it */
      review: components['schemas']['BadCaseReviewDto'] | null;
      /** @description Failure layer and the rule that decided it, from the stored trace */
      attribution: components['schemas']['FailureAttributionDto'];
    };
    BadCasePageDto: {
      items: components['schemas']['BadCaseDto'][];
      nextCursor: string | null;
    };
    BadCaseReportDto: {
      from: string | null;
      to: string | null;
      /** @description Bad cases marked in the window */
      total: number;
      /** @description Bad cases per failure layer (routing, retrieval, knowledge_gap, answer_generation), zeros included */
      byLayer: {
        [key: string]: number;
      };
      /** @description Bad cases per attribution rule (labelled_other_intent, clarify, no_match_answerable, low_routing_confidence, lookup_failed, low_grade, nothing_relevant, no_references, said_no_answer, run_failed, case_answer_not_useful, configured_reply_not_useful, answer_not_useful, unexplained), zeros included */
      byReason: {
        [key: string]: number;
      };
    };
    AcceptExampleDto: {
      /**
       * @description The bad case's correct intent; its enabled rule (highest priority) takes the question
       * @example fault_diagnosis
       */
      intent: string;
    };
    AcceptExampleResultDto: {
      /** Format: uuid */
      sessionId: string;
      intent: string;
      /** Format: uuid */
      ruleId: string;
      /** @description The question appended to the rule */
      example: string;
      /** @description The rule's semantic examples after the append */
      semanticExampleCount: number;
      label: components['schemas']['BadCaseLabelDto'];
    };
    PutBadCaseReviewDto: {
      /**
       * @description The correct intent: an intent of a rule of the tenant; null clears it
       * @example fault_diagnosis
       */
      intent?: string | null;
      /**
       * Format: uuid
       * @description The correct knowledge document of the tenant; null clears it
       */
      documentId?: string | null;
      /** @description The operator's note; null clears it */
      note?: string | null;
      /**
       * @description RESOLVED resolves the case (resolvedAt set once), OPEN reopens it
       * @enum {string}
       */
      status?: 'OPEN' | 'RESOLVED';
    };
    CaseLibrarySettingsDto: {
      /**
       * @description A verified case answers a chat message when their similarity (character n-gram TF-IDF cosine) is at least this; in (0, 1] (1 = the same question up to case, width, spacing and punctuation)
       * @example 0.85
       */
      threshold: number;
      /** @description True when the tenant has not set one (the built-in default applies) */
      isDefault: boolean;
      /** @description Version of the tenant's answerable cases and settings (moves on every change that can change an answer) */
      version: string;
    };
    PutCaseLibrarySettingsDto: {
      /**
       * @description In (0, 1]; null = back to the default
       * @example 0.9
       */
      threshold: number | null;
    };
    CaseDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      sessionId: string | null;
      query: string;
      answer: string;
      /** @enum {string} */
      faultCategory: 'GENERAL' | 'MECHANICAL' | 'ELECTRICAL' | 'SOFTWARE' | 'COMMUNICATION' | 'CONFIGURATION' | 'OPERATION' | 'SAFETY' | 'OTHER';
      errorCode: string | null;
      /** @enum {string} */
      sourceType: 'AUTO' | 'MANUAL';
      createdAt: string;
      updatedAt: string;
    };
    CasePageDto: {
      items: components['schemas']['CaseDto'][];
      nextCursor: string | null;
    };
    CreateCaseDto: {
      query: string;
      answer: string;
      /**
       * @default GENERAL
       * @enum {string}
       */
      faultCategory: 'GENERAL' | 'MECHANICAL' | 'ELECTRICAL' | 'SOFTWARE' | 'COMMUNICATION' | 'CONFIGURATION' | 'OPERATION' | 'SAFETY' | 'OTHER';
      /** @example E102 */
      errorCode?: string | null;
    };
    UpdateCaseDto: {
      /** @description The question (what chat messages are matched against) */
      query?: string;
      /** @description The answer the chat gives when the case matches */
      answer?: string;
      /** @enum {string} */
      faultCategory?: 'GENERAL' | 'MECHANICAL' | 'ELECTRICAL' | 'SOFTWARE' | 'COMMUNICATION' | 'CONFIGURATION' | 'OPERATION' | 'SAFETY' | 'OTHER';
      /**
       * @description null clears it
       * @example E102
       */
      errorCode?: string | null;
    };
    ConversationSummaryDto: {
      /** Format: uuid */
      id: string;
      channel: string;
      userRef: string | null;
      sessionCount: number;
      createdAt: string;
      lastActivityAt: string;
      /** @description Status of the latest session */
      lastStatus: string | null;
      /** @description Lowest self-evaluation confidence (0..100) of its sessions */
      lowestConfidence: number | null;
      /** @description Some session is a BAD_CASE */
      anyBadCase: boolean;
    };
    ConversationPageDto: {
      items: components['schemas']['ConversationSummaryDto'][];
      nextCursor: string | null;
    };
    ToolInvocationTraceDto: {
      /** Format: uuid */
      id: string;
      /** @example knowledge_lookup */
      toolName: string;
      arguments: Record<string, never>;
      /** @enum {string} */
      status: 'SUCCESS' | 'FAILED';
      resultSummary: string | null;
      /** @example HIGHLY_RELEVANT */
      relevanceLevel: string | null;
      /** @example doc_retrieved */
      dedupReason: string | null;
      /** @description l1TopSimilarity, relevanceLevel, completenessHint, retrievedDomains, dedupReason, … */
      retrievalDetails: Record<string, never> | null;
      durationMs: number | null;
      error: string | null;
      createdAt: string;
    };
    CoverageTraceDto: {
      /** @enum {string} */
      verdict: 'covered' | 'uncovered';
      reasonCode: string;
      evaluatorVersion: string;
      referenceCount: number;
      topScore: number;
      decidedAt: string;
    };
    FeedbackTraceDto: {
      /** @enum {string} */
      value: 'useful' | 'not_useful';
      comment: string | null;
      updatedAt: string | null;
    };
    SessionTraceDto: {
      /** Format: uuid */
      id: string;
      channel: string;
      userRef: string | null;
      query: string;
      answer: string | null;
      status: string;
      intent: string | null;
      stepCount: number;
      toolCallCount: number;
      references: Record<string, never>[];
      media: Record<string, never>[];
      knowledgeSearched: boolean;
      /** @description ruleMatch, semanticMatch, llmJudge, fusion */
      routeTrace: Record<string, never> | null;
      toolInvocations: components['schemas']['ToolInvocationTraceDto'][];
      selfEvaluation: Record<string, never> | null;
      /** @description Decision of the current evaluator version */
      coverage: components['schemas']['CoverageTraceDto'] | null;
      feedback: components['schemas']['FeedbackTraceDto'] | null;
      latencyMs: number | null;
      error: string | null;
      createdAt: string;
      updatedAt: string;
      finishedAt: string | null;
    };
    ConversationDetailDto: {
      /** Format: uuid */
      id: string;
      channel: string;
      userRef: string | null;
      createdAt: string;
      lastActivityAt: string;
      sessionCount: number;
      /** @description Every session, oldest first */
      sessions: components['schemas']['SessionTraceDto'][];
    };
    JudgeStatsDto: {
      calls: number;
      callRate: number | null;
      tokens: number;
    };
    CoverageStatsDto: {
      evaluated: number;
      covered: number;
      rate: number | null;
    };
    FeedbackStatsDto: {
      useful: number;
      notUseful: number;
    };
    LatencyStatsDto: {
      count: number;
      p50: number | null;
      p95: number | null;
    };
    StatsBucketDto: {
      sessions: number;
      /**
       * @example {
       *       "PENDING": 0,
       *       "RUNNING": 0,
       *       "SUCCESS": 12,
       *       "FAILED": 1,
       *       "BAD_CASE": 2
       *     }
       */
      byStatus: Record<string, never>;
      /**
       * @description Count per decision reason of the route traces (docs/spec/intent-routing.md); traces stored before 2026-11-30 may count the retired `semantic_fallback`
       * @example {
       *       "rule_high_confidence": 9,
       *       "fusion_fallback": 2
       *     }
       */
      decisionReasons: Record<string, never>;
      /** @description Sessions with a route trace (denominator of clarifyRate and judge.callRate) */
      routedSessions: number;
      clarifyRate: number | null;
      judge: components['schemas']['JudgeStatsDto'];
      /**
       * @example {
       *       "rule": {
       *         "count": 10,
       *         "meanConfidence": 64.5
       *       }
       *     }
       */
      selfEvaluation: Record<string, never>;
      coverage: components['schemas']['CoverageStatsDto'];
      feedback: components['schemas']['FeedbackStatsDto'];
      latencyMs: components['schemas']['LatencyStatsDto'];
    };
    DayStatsDto: {
      sessions: number;
      /**
       * @example {
       *       "PENDING": 0,
       *       "RUNNING": 0,
       *       "SUCCESS": 12,
       *       "FAILED": 1,
       *       "BAD_CASE": 2
       *     }
       */
      byStatus: Record<string, never>;
      /**
       * @description Count per decision reason of the route traces (docs/spec/intent-routing.md); traces stored before 2026-11-30 may count the retired `semantic_fallback`
       * @example {
       *       "rule_high_confidence": 9,
       *       "fusion_fallback": 2
       *     }
       */
      decisionReasons: Record<string, never>;
      /** @description Sessions with a route trace (denominator of clarifyRate and judge.callRate) */
      routedSessions: number;
      clarifyRate: number | null;
      judge: components['schemas']['JudgeStatsDto'];
      /**
       * @example {
       *       "rule": {
       *         "count": 10,
       *         "meanConfidence": 64.5
       *       }
       *     }
       */
      selfEvaluation: Record<string, never>;
      coverage: components['schemas']['CoverageStatsDto'];
      feedback: components['schemas']['FeedbackStatsDto'];
      latencyMs: components['schemas']['LatencyStatsDto'];
      /** @example 2026-03-01 */
      date: string;
    };
    AgreementTableDto: {
      /** @description Predicted good, feedback useful */
      goodUseful: number;
      /** @description Predicted good, feedback not useful */
      goodNotUseful: number;
      /** @description Predicted bad, feedback useful */
      badUseful: number;
      /** @description Predicted bad, feedback not useful */
      badNotUseful: number;
    };
    AgreementDto: {
      table: components['schemas']['AgreementTableDto'];
      /** @description Sessions in the table */
      n: number;
      /** @description (goodUseful + badNotUseful) / n; null when n = 0 */
      observedAgreement: number | null;
      /** @description Agreement expected by chance from the margins; null when n = 0 */
      expectedAgreement: number | null;
      /** @description Cohen's κ = (po − pe) / (1 − pe), 6 decimals; null when n = 0 or pe = 1 (both sides gave every session the same single value) */
      kappa: number | null;
    };
    StatsAgreementDto: {
      /**
       * @description Which timestamp puts a session in the window: the time of its current feedback (session_feedback.updated_at), not its creation
       * @enum {string}
       */
      period: 'feedback';
      /** @description Self-evaluation confidence / 100 at or above this = "good" */
      selfEvaluationThreshold: number;
      /** @description Self-evaluation (good/bad) vs feedback (useful/not useful); sessions without a self-evaluation are left out */
      selfEvaluation: components['schemas']['AgreementDto'];
      /** @description Coverage verdict (covered = good) vs feedback; sessions without a decision of the evaluator version are left out */
      coverage: components['schemas']['AgreementDto'];
    };
    StatsDto: {
      /** @description Window start (inclusive), ISO instant */
      from: string;
      /** @description Window end (exclusive), ISO instant */
      to: string;
      /** @example UTC */
      timeZone: string;
      /** @example v1 */
      evaluatorVersion: string;
      /** @enum {string|null} */
      groupBy: 'day' | null;
      totals: components['schemas']['StatsBucketDto'];
      /** @description With groupBy=day: days (tenant time zone) that have sessions or decisions */
      byDay?: components['schemas']['DayStatsDto'][];
      /** @description With agreement=true: Cohen's κ of self-evaluation and of coverage against user feedback given in the window (docs/learning.md "Agreement") */
      agreement?: components['schemas']['StatsAgreementDto'];
    };
    StatsRebuildDto: {
      /** @description 15-minute buckets of session figures rebuilt */
      sessionBuckets: number;
      /** @description 15-minute buckets of coverage figures rebuilt (per evaluator version) */
      coverageBuckets: number;
      durationMs: number;
    };
    CreateIntentRuleDto: {
      /** @example 故障诊断 */
      intent: string;
      /** @example 机械臂报警、故障排查 / fault diagnosis */
      description?: string | null;
      /**
       * @description Case-insensitive substrings
       * @example [
       *       "报警",
       *       "alarm"
       *     ]
       */
      keywords?: string[];
      /**
       * @description RE2 regular expressions (case-insensitive, linear time)
       * @example [
       *       "(错误|报警)码\\s*[A-Z]?\\d+"
       *     ]
       */
      patterns?: string[];
      /**
       * @description Embedded once when saved
       * @example [
       *       "机械臂报警了怎么办",
       *       "the arm shows an alarm"
       *     ]
       */
      semanticExamples?: string[];
      /** @description Mode A vector; its dimension must equal the embedding provider's */
      intentVector?: number[] | null;
      /** @default 0 */
      priority: number;
      /** @default true */
      enabled: boolean;
      /** @description Canned reply (action "answer") */
      reply?: string | null;
      /**
       * @default knowledge
       * @enum {string}
       */
      action: 'knowledge' | 'answer' | 'transfer';
      /**
       * @description Confidence profile used by the retrieval confidence
       * @default search
       * @enum {string}
       */
      confidenceProfile: 'impact' | 'dependency' | 'search' | 'documentation' | 'complexity' | 'overview' | 'refactor' | 'reference';
    };
    ExampleEmbeddingsDto: {
      /** @example local:hash-v2:384 */
      model: string;
      dimension: number;
      count: number;
    };
    IntentRuleViewDto: {
      /** Format: uuid */
      id: string;
      /** @example 故障诊断 */
      intent: string;
      description: string | null;
      keywords: string[];
      /** @description RE2 regular expressions (linear time) */
      patterns: string[];
      semanticExamples: string[];
      intentVector: number[] | null;
      priority: number;
      enabled: boolean;
      reply: string | null;
      /** @enum {string} */
      action: 'knowledge' | 'answer' | 'transfer';
      /** @example search */
      confidenceProfile: string;
      exampleEmbeddings: components['schemas']['ExampleEmbeddingsDto'] | null;
      createdAt: string;
      updatedAt: string;
    };
    BulkCreateIntentRulesDto: {
      /** @description Created together (all or none), with one retrain of the router */
      rules: components['schemas']['CreateIntentRuleDto'][];
    };
    IntentRulePageDto: {
      items: components['schemas']['IntentRuleViewDto'][];
      nextCursor: string | null;
    };
    EvaluationExampleDto: {
      text: string;
      /** @description Expected intent; null = out of scope (expects no_match) */
      intent: string | null;
    };
    EvaluateIntentRulesDto: {
      /** @description A partial config override to evaluate instead of the saved one (not saved) */
      config?: {
        [key: string]: unknown;
      };
      /** @default 10 */
      topConfusions: number;
      examples: components['schemas']['EvaluationExampleDto'][];
    };
    IntentMetricsDto: {
      intent: string;
      precision: number;
      recall: number;
      f1: number;
      /** @description Labelled examples of the intent */
      support: number;
    };
    ConfusionPairDto: {
      /** @description Labelled intent; null = out of scope */
      expected: string | null;
      /** @description Routed intent; null = no intent */
      predicted: string | null;
      count: number;
    };
    ReliabilityBinDto: {
      from: number;
      to: number;
      count: number;
      meanConfidence: number | null;
      /** @description Share of right decisions in the bin */
      accuracy: number | null;
    };
    ReliabilityReportDto: {
      /** @description Expected calibration error (10 equal-width bins) */
      ece: number;
      bins: components['schemas']['ReliabilityBinDto'][];
      samples: number;
    };
    FusionWeightsDto: {
      /** @example 0.5 */
      rule: number;
      /** @example 0.3 */
      semantic: number;
      /** @example 0.2 */
      llm: number;
    };
    CalibrationDto: {
      /** @enum {string} */
      method: 'isotonic';
      /** @description Knots of the fused confidence, ascending, within [0, 1] */
      x: number[];
      /** @description Probability at each knot, non-decreasing, within [0, 1] */
      y: number[];
      /** @description Labelled decisions it was fitted on */
      samples: number;
    };
    IntentConfigDto: {
      weights: components['schemas']['FusionWeightsDto'];
      /** @example 0.7 */
      semanticThreshold: number;
      /** @example 0.2 */
      conflictThreshold: number;
      /** @example 0.6 */
      grayZoneThreshold: number;
      /** @example 0.3 */
      minTriggerThreshold: number;
      /** @example 0.4 */
      clarifyThreshold: number;
      /** @example 0.15 */
      multiIntentThreshold: number;
      llmJudgeEnabled: boolean;
      semanticMatcherEnabled: boolean;
      /** @example 100 */
      semanticMatcherTimeoutMs: number;
      /** @example 2000 */
      llmJudgeTimeoutMs: number;
      /** @example 3 */
      semanticTopK: number;
      /**
       * @description mean | max | topk_mean | centroid_knn | classifier
       * @example mean
       */
      semanticAggregation: string;
      /** @example 3 */
      semanticExampleK: number;
      /** @description Isotonic map of the fused confidence onto P(named intent is right), proposed by a fit (docs/learning.md); null = uncalibrated */
      calibration: components['schemas']['CalibrationDto'] | null;
    };
    IntentEvaluationReportDto: {
      total: number;
      inScopeTotal: number;
      outOfScopeTotal: number;
      /** @description Share of all examples routed to their label (null label ↔ no intent) */
      accuracy: number;
      inScopeAccuracy: number | null;
      /** @description Share of out-of-scope examples routed to no intent */
      outOfScopeRecall: number | null;
      macroF1: number;
      /** @description Per intent: precision, recall, F1, support */
      perIntent: components['schemas']['IntentMetricsDto'][];
      /** @description Most frequent (expected → predicted) confusion pairs */
      confusions: components['schemas']['ConfusionPairDto'][];
      clarifyRate: number;
      judgeCallRate: number;
      /** @description Count per decisionReason */
      decisionReasons: Record<string, never>;
      /** @description Calibration of finalConfidence over decisions that named an intent */
      reliability: components['schemas']['ReliabilityReportDto'];
      /** @description The config the examples were routed with */
      config: components['schemas']['IntentConfigDto'];
    };
    UpdateIntentRuleDto: {
      intent?: string;
      description?: string | null;
      keywords?: string[];
      patterns?: string[];
      semanticExamples?: string[];
      intentVector?: number[] | null;
      priority?: number;
      enabled?: boolean;
      reply?: string | null;
      /** @enum {string} */
      action?: 'knowledge' | 'answer' | 'transfer';
      /** @enum {string} */
      confidenceProfile?: 'impact' | 'dependency' | 'search' | 'documentation' | 'complexity' | 'overview' | 'refactor' | 'reference';
    };
    IntentTrainingDto: {
      /**
       * @description idle | queued (waiting for a thread, or newer rules not compiled here yet) | training | failed
       * @enum {string}
       */
      state: 'idle' | 'queued' | 'training' | 'failed';
      /** @description Share of the training done (0..1) while `training`; null otherwise */
      progress: number | null;
    };
    IntentStatusDto: {
      /**
       * @description The tenant's stored rules version (shared by every API process)
       * @example 42
       */
      rulesVersion: string;
      /**
       * @description Rules version the classifier serving on this API process was trained on; null: none yet (the interim matcher serves)
       * @example 41
       */
      classifierVersion: string | null;
      training: components['schemas']['IntentTrainingDto'];
      /** @description Duration of the last completed training on this API process (ms, submission to serving) */
      lastTrainingMs: number | null;
      /** @description Intents routed by their examples (the interim matcher) until the retrained classifier serves */
      interimIntents: number;
    };
    RouteIntentDto: {
      /** @example 机械臂报警 E102 怎么处理 */
      message: string;
    };
    IntentCandidateDto: {
      intent: string;
      confidence: number;
    };
    RouteResultDto: {
      finalIntent: string | null;
      ruleId: string | null;
      /** @description Fused confidence; with a calibration and a named intent, the calibrated probability of being right (routeTrace.fusion.rawConfidence keeps the fused one) */
      finalConfidence: number;
      /**
       * @description docs/spec/intent-routing.md decision order. `fusion_fallback`: step 4 without a judge answer (no trigger, judge disabled, failed or timed out) takes the top candidate of the rule + semantic fusion. Route traces stored before 2026-11-30 may carry the retired `semantic_fallback` (the semantic top). `clarify_resolved` is the chat's only (a session's route trace, the stream's `route` event): the user picked one of the intents a clarifying question offered (docs/chat-clients.md "Clarification"); this endpoint never answers it.
       * @enum {string}
       */
      decisionReason: 'rule_high_confidence' | 'semantic_override' | 'no_match' | 'llm_judge' | 'fusion_fallback' | 'clarify_resolved';
      needClarify: boolean;
      candidates: components['schemas']['IntentCandidateDto'][];
      /** @description {ruleMatch, semanticMatch, llmJudge, fusion} — see docs/spec/intent-routing.md */
      routeTrace: Record<string, never>;
    };
    ChatRequestDto: {
      /**
       * @description The user message (Chinese or English)
       * @example 机械臂报警 E201 怎么处理？
       */
      message: string;
      /**
       * Format: uuid
       * @description Continue this conversation (its action memory carries over); omitted → a new conversation
       */
      conversationId?: string;
      /**
       * @default web
       * @example web
       */
      channel: string;
      /** @description Your reference for the end user (never shown to other tenants) */
      userRef?: string;
      media?: components['schemas']['MediaDto'][];
      /** @description true → answer as server-sent events (route, lookup, delta…, done | error; docs/chat-clients.md), like `Accept: text/event-stream`; false → JSON whatever `Accept` says */
      stream?: boolean;
      /**
       * @description Metadata filter of this turn's knowledge lookups (as the lookup's `filter`: {<metadata key>: value | [values]}); absent → the tenant's default (PUT /admin/knowledge/config `defaultFilter`). A bad filter is a 400 naming it.
       * @example {
       *       "model": "RX-200"
       *     }
       */
      filter?: {
        [key: string]: unknown;
      };
    };
    ChatCandidateDto: {
      /** @example fault_diagnosis */
      intent: string;
      /** @example 0.38 */
      confidence: number;
    };
    ChatReferenceDto: {
      /** @example faults/e201-servo-overcurrent.md */
      filePath: string;
      /** @example E201 伺服过流报警 */
      title: string;
      /** @description Normalized similarity of the quoted chunk (1 − L2/maxL2Distance) */
      similarity: number;
      /**
       * @description Relevance level of the lookup that returned it
       * @enum {string}
       */
      relevanceLevel: 'PRECISE' | 'HIGHLY_RELEVANT' | 'REFERENCE';
      /**
       * @description The uploaded file the quoted document was made from; null for JSON documents
       * @example Manual.pdf
       */
      fileName: string | null;
      /**
       * @description 1-based first page of the quoted chunk (PDF); null otherwise
       * @example 48
       */
      page: number | null;
      /**
       * @description 1-based last page of the quoted chunk (PDF); null otherwise
       * @example 48
       */
      pageEnd: number | null;
      /**
       * @description The quoted chunk's section (heading path, outermost first); null without one
       * @example [
       *       "1 Getting started",
       *       "1.4.7 Setting a default editor"
       *     ]
       */
      section: string[] | null;
    };
    ChatCaseLibraryDto: {
      /**
       * Format: uuid
       * @description The verified case that answered (GET /admin/case-library/:id)
       */
      caseId: string;
      /** @description The case's question */
      query: string;
      /**
       * @description Character n-gram TF-IDF cosine of the message and the question
       * @example 0.93
       */
      similarity: number;
      /**
       * @description The tenant's threshold it met
       * @example 0.85
       */
      threshold: number;
    };
    ChatResponseDto: {
      /**
       * Format: uuid
       * @description The session of this turn (GET /api/sessions/:id, feedback)
       */
      sessionId: string;
      /** Format: uuid */
      conversationId: string;
      /** @description The reply to show the user, in the user language */
      reply: string;
      /**
       * @description Kept for compatibility; prefer the named fields below. How far to trust the reply as an answer: for a knowledge answer (or a pointer back to an earlier one) the retrieval confidence (`retrievalConfidence`); for the not-found exit 0 — the reply carries no answer (`shouldTransfer` is true; the lookup score stays in `retrievalConfidence`), so a "not found" reply never reports the router's certainty; for a verified case's answer (`caseLibrary`) the case's similarity to the message; for a reply that does not depend on the knowledge base (clarification, rule answer, hand-off) the routing confidence (`routingConfidence`); 0 for a failed run.
       * @example 0.82
       */
      confidence: number;
      /**
       * @description How sure the intent router is of `intent` (its fused `finalConfidence`), whatever the reply turned out to be
       * @example 0.98
       */
      routingConfidence: number;
      /**
       * @description Retrieval confidence score of the turn's best knowledge lookup (docs/spec/evaluation.md §2: result count 40 % + mean relevance 40 % + scenario 20 %); null when no lookup was made
       * @example 0.82
       */
      retrievalConfidence: number | null;
      /**
       * @description Self-evaluation of the answer (docs/spec/evaluation.md §1: 0–100, here scaled to 0–1) when it is stored before the reply leaves — the rule evaluation when no LLM is configured; null otherwise (an LLM self-evaluation runs after the reply: read `selfEvaluation` from GET /api/sessions/:id)
       * @example 0.75
       */
      answerConfidence: number | null;
      /** @description True when a human should take over: hand-off intent, or the knowledge base could not answer (low confidence / legitimate exit) */
      shouldTransfer: boolean;
      /** @description True when the reply is a clarifying question listing `candidates` (no knowledge search was made) */
      needClarify: boolean;
      candidates: components['schemas']['ChatCandidateDto'][];
      /** @description The routed intent (null when nothing matched) */
      intent: string | null;
      /** @description Knowledge documents the reply quotes (empty for non-knowledge replies, the not-found exit, and a pointer back to an earlier answer — whose session keeps the earlier references it points to) */
      references: components['schemas']['ChatReferenceDto'][];
      /** @description Set when a verified case (a useful AUTO or a MANUAL case-library entry) answered: its question matched the message at or above the tenant threshold; `reply` is its answer. null otherwise */
      caseLibrary: components['schemas']['ChatCaseLibraryDto'] | null;
    };
    ChatCompletionRequestDto: {
      /**
       * @description The conversation: the last message (role user) is the turn, earlier user/assistant messages its history (system and developer messages are accepted, not used). At most 64 messages and 32000 characters of content (413 above); contents are non-empty strings.
       * @example [
       *       {
       *         "role": "user",
       *         "content": "机械臂报警 E201 怎么处理？"
       *       }
       *     ]
       */
      messages: {
        /** @enum {string} */
        role: 'system' | 'developer' | 'user' | 'assistant';
        content: string;
      }[];
      /**
       * @description Any value is accepted and echoed back; GET /v1/models lists `arbiter`
       * @example arbiter
       */
      model?: string;
      /** @description true → `chat.completion.chunk` server-sent events ending with `data: [DONE]` */
      stream?: boolean;
      /** @description Your end user's reference (stored as the session's userRef) */
      user?: string;
    };
    DecisionCandidateDto: {
      intent: string;
      confidence: number;
    };
    DecisionLabelDto: {
      /** @description null = out of scope */
      intent: string | null;
      /** Format: date-time */
      labelledAt: string;
    };
    DecisionDto: {
      /** Format: uuid */
      id: string;
      /**
       * Format: date-time
       * @description When the router decided
       */
      createdAt: string;
      /** @enum {string} */
      source: 'route' | 'chat';
      /**
       * Format: uuid
       * @description The chat session (source chat)
       */
      sessionId: string | null;
      message: string;
      /** @description The tenant config version the router used (intent_tenant_config.config_version) */
      configVersion: string;
      /** @description The rules version the router used (intent_tenant_config.rules_version) */
      rulesVersion: string;
      /** @description finalIntent (null: no intent) */
      intent: string | null;
      /**
       * @description decisionReason
       * @enum {string}
       */
      reason: 'rule_high_confidence' | 'semantic_override' | 'no_match' | 'llm_judge' | 'fusion_fallback' | 'clarify_resolved' | 'semantic_fallback';
      needClarify: boolean;
      /** @description finalConfidence */
      confidence: number;
      candidates: components['schemas']['DecisionCandidateDto'][];
      /** @description The routeTrace (docs/spec/intent-routing.md) */
      trace: {
        [key: string]: unknown;
      };
      /** @description Routing time in ms (router lookup + routing) */
      latencyMs: number;
      /** @description The operator's label (review set), if any */
      label: components['schemas']['DecisionLabelDto'] | null;
    };
    DecisionPageDto: {
      items: components['schemas']['DecisionDto'][];
      nextCursor: string | null;
    };
    LabelDecisionDto: {
      /**
       * @description The correct intent (a rule of the tenant names it), or null: out of scope
       * @example reset_arm
       */
      intent: string | null;
    };
    LabelledExampleDto: {
      /** Format: uuid */
      id: string;
      /** @description Line (JSONL) or 1-based position (JSON array) in the upload; null for review labels */
      line: number | null;
      text: string;
      /** @description null = out of scope */
      intent: string | null;
      /**
       * Format: uuid
       * @description The labelled decision (review set)
       */
      decisionId: string | null;
      /** Format: date-time */
      createdAt: string;
    };
    DecisionLogSettingsDto: {
      /**
       * @description Days a decision is kept; older ones are deleted by the daily `learning.decision-log-cleanup` job
       * @example 30
       */
      retentionDays: number;
    };
    LabelledSnapshotRequestDto: {
      /**
       * @description Set name; the snapshot is its next version
       * @example from-feedback
       */
      name: string;
      /**
       * @description Sources in order of precedence
       * @example [
       *       "review",
       *       "bad_cases",
       *       "case_library"
       *     ]
       */
      sources: ('review' | 'bad_cases' | 'case_library')[];
    };
    LabelledSetDto: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @description Uploads of one name are numbered 1, 2, …; the review set is always 1 */
      version: number;
      /**
       * @description upload, or review: the labels operators put on logged decisions
       * @enum {string}
       */
      kind: 'upload' | 'review';
      exampleCount: number;
      /** @description Examples labelled out of scope (intent null) */
      outOfScopeCount: number;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    SnapshotCountsDto: {
      review: number;
      bad_cases: number;
      case_library: number;
    };
    LabelledSnapshotDto: {
      set: components['schemas']['LabelledSetDto'];
      /** @description Examples taken from each source */
      counts: components['schemas']['SnapshotCountsDto'];
      /** @description Messages already labelled by an earlier source */
      duplicates: number;
      /** @description Intents without a rule: their labels were left out */
      unknownIntents: string[];
      /** @description Labels beyond the set limit, left out */
      truncated: number;
    };
    LabelledExampleInputDto: {
      /** @example how do I reset the arm */
      text: string;
      /**
       * @description null = out of scope
       * @example reset_arm
       */
      intent: string | null;
    };
    UploadLabelledSetDto: {
      /**
       * @description 1-100 letters, digits, "_", "-" or ".", starting with a letter or digit
       * @example clinc150-train
       */
      name: string;
      examples: components['schemas']['LabelledExampleInputDto'][];
    };
    LabelledSetPageDto: {
      items: components['schemas']['LabelledSetDto'][];
      nextCursor: string | null;
    };
    LabelledExamplePageDto: {
      items: components['schemas']['LabelledExampleDto'][];
      nextCursor: string | null;
    };
    LabelledSetDetailDto: {
      /** Format: uuid */
      id: string;
      name: string;
      /** @description Uploads of one name are numbered 1, 2, …; the review set is always 1 */
      version: number;
      /**
       * @description upload, or review: the labels operators put on logged decisions
       * @enum {string}
       */
      kind: 'upload' | 'review';
      exampleCount: number;
      /** @description Examples labelled out of scope (intent null) */
      outOfScopeCount: number;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
      /** @description One page of examples (newest first; `limit`/`cursor` of the request) */
      examples: components['schemas']['LabelledExamplePageDto'];
    };
    FitTargetsDto: {
      /**
       * @description Out-of-scope recall the fit must reach
       * @default 0.5
       */
      minOutOfScopeRecall: number;
      /**
       * @description Clarify rate the fit must stay within
       * @default 0.1
       */
      maxClarifyRate: number;
    };
    IntentFitRequestDto: {
      /**
       * Format: uuid
       * @description The labelled set (one version) to fit on
       */
      labelledSetId: string;
      targets?: components['schemas']['FitTargetsDto'];
    };
    FitLabelledSetRefDto: {
      /** Format: uuid */
      id: string;
      name: string;
      version: number;
    };
    IntentFitDto: {
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      status: 'queued' | 'running' | 'succeeded' | 'failed';
      labelledSet: components['schemas']['FitLabelledSetRefDto'];
      targets: components['schemas']['FitTargetsDto'];
      /** @description Config version the fit was computed on: send it as If-Match when applying */
      configVersion: string | null;
      /** @description {feasible, proposed, proposedConfig (PUT-able, with calibration), before, after, crossValidated, reliability {raw, calibrated}, folds, configsSearched, targets} — docs/learning.md */
      result: Record<string, never> | null;
      error: string | null;
      /**
       * Format: uuid
       * @description The job run (GET /admin/jobs/:id)
       */
      jobId: string | null;
      createdAt: string;
      finishedAt: string | null;
    };
    IntentFitPageDto: {
      items: components['schemas']['IntentFitDto'][];
      nextCursor: string | null;
    };
    IntentReplayRequestDto: {
      /**
       * Format: date-time
       * @description Window start (inclusive); required unless decisionIds
       */
      from?: string;
      /**
       * Format: date-time
       * @description Window end (inclusive); default now
       */
      to?: string;
      /** @description Explicit logged decisions instead of a window */
      decisionIds?: string[];
      /** @description Candidate config override (keys of PUT /admin/intent-config), merged onto the live config */
      config?: Record<string, never>;
      /** @description A whole draft rule set (rules as POST /admin/intent-rules takes them) replacing the live rules */
      rules?: Record<string, never>[];
    };
    IntentReplayWindowDto: {
      from: string;
      to: string;
    };
    IntentReplayDto: {
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      status: 'queued' | 'running' | 'succeeded' | 'failed';
      window: components['schemas']['IntentReplayWindowDto'] | null;
      decisionIds: string[] | null;
      /** @description {config?, rules?} as requested */
      candidate: Record<string, never>;
      /** @description Logged decisions in scope when requested */
      decisions: number;
      /** @description {total, changed, intentChanged, clarifyChanged, judgeWouldRun, transitions [{from, to, count}], reasonTransitions, byIntent, samples, labelled {total, accuracyBefore, accuracyAfter}, configVersion, rulesVersion} */
      report: Record<string, never> | null;
      error: string | null;
      /**
       * Format: uuid
       * @description The job run (GET /admin/jobs/:id shows progress)
       */
      jobId: string | null;
      createdAt: string;
      finishedAt: string | null;
    };
    IntentReplayPageDto: {
      items: components['schemas']['IntentReplayDto'][];
      nextCursor: string | null;
    };
    CreateWebhookDto: {
      /** @example https://desk.example.com/hooks/arbiter */
      url: string;
      events: ('handoff.requested' | 'feedback.bad_case' | 'coverage.uncovered' | 'job.failed')[];
      description?: string;
    };
    WebhookWithSecretDto: {
      /** Format: uuid */
      id: string;
      url: string;
      events: ('handoff.requested' | 'feedback.bad_case' | 'coverage.uncovered' | 'job.failed')[];
      description: string | null;
      enabled: boolean;
      /** @description Why it was disabled (after repeated failures, or by an operator) */
      disabledReason: string | null;
      /** @description Failed attempts in a row */
      consecutiveFailures: number;
      /** @description Until when the previous secret also signs (rotation overlap) */
      previousSecretExpiresAt: string | null;
      createdAt: string;
      updatedAt: string;
      /** @description The signing secret (HMAC-SHA256 key as UTF-8). Shown only in this response. */
      secret: string;
    };
    WebhookDto: {
      /** Format: uuid */
      id: string;
      url: string;
      events: ('handoff.requested' | 'feedback.bad_case' | 'coverage.uncovered' | 'job.failed')[];
      description: string | null;
      enabled: boolean;
      /** @description Why it was disabled (after repeated failures, or by an operator) */
      disabledReason: string | null;
      /** @description Failed attempts in a row */
      consecutiveFailures: number;
      /** @description Until when the previous secret also signs (rotation overlap) */
      previousSecretExpiresAt: string | null;
      createdAt: string;
      updatedAt: string;
    };
    WebhookListDto: {
      items: components['schemas']['WebhookDto'][];
    };
    UpdateWebhookDto: {
      url?: string;
      events?: ('handoff.requested' | 'feedback.bad_case' | 'coverage.uncovered' | 'job.failed')[];
      description?: string | null;
      /** @description false pauses deliveries; true re-enables a subscription (also one disabled after failures) and resets its failure count */
      enabled?: boolean;
    };
    RotateWebhookSecretDto: {
      /**
       * @description How long the previous secret keeps signing (X-Arbiter-Signature-Previous); 0 ends it at once
       * @default 86400
       */
      overlapSeconds: number;
    };
    WebhookDeliveryDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      subscriptionId: string;
      /** Format: uuid */
      eventId: string;
      /** @enum {string} */
      eventType: 'handoff.requested' | 'feedback.bad_case' | 'coverage.uncovered' | 'job.failed';
      /** Format: uuid */
      redeliveryOf: string | null;
      /** @enum {string} */
      status: 'pending' | 'succeeded' | 'failed';
      attempts: number;
      nextAttemptAt: string | null;
      lastAttemptAt: string | null;
      responseStatus: number | null;
      responseMs: number | null;
      error: string | null;
      createdAt: string;
      finishedAt: string | null;
    };
    WebhookDeliveryListDto: {
      items: components['schemas']['WebhookDeliveryDto'][];
    };
    OverviewWindowDto: {
      /**
       * @description First day, inclusive
       * @example 2026-03-01
       */
      from: string;
      /**
       * @description Last day, inclusive
       * @example 2026-03-30
       */
      to: string;
      /**
       * @description The tenant's time zone the days are read in
       * @example UTC
       */
      timeZone: string;
      /**
       * @description The channel filter, null for every channel
       * @example web
       */
      channel: string | null;
    };
    OverviewCoverageDayDto: {
      /** @example 2026-03-01 */
      date: string;
      /** @description Sessions with a coverage decision of the current evaluator version */
      evaluated: number;
      covered: number;
      /** @description covered / evaluated (4 decimals); null without decisions */
      rate: number | null;
    };
    OverviewTotalsDto: {
      /** @description Sessions created in the window */
      sessions: number;
      /** @description Coverage rate of the window (4 decimals); null without decisions */
      coverageRate: number | null;
      /** @description Sessions whose current feedback is useful */
      useful: number;
      /** @description Sessions whose current feedback is not useful */
      notUseful: number;
      /** @description Sessions in status BAD_CASE */
      badCases: number;
    };
    ConfidenceBinDto: {
      /**
       * @description Lower bound, inclusive
       * @example 80
       */
      from: number;
      /**
       * @description Upper bound, exclusive (the last bin includes 100)
       * @example 90
       */
      to: number;
      /** @description Sessions whose self-evaluation confidence falls in the bin */
      count: number;
    };
    ReliabilityPointDto: {
      /**
       * @description Fused confidence (0..1)
       * @example 0.42
       */
      x: number;
      /**
       * @description Calibrated probability (0..1)
       * @example 0.37
       */
      y: number;
    };
    ReliabilityDto: {
      /** @enum {string} */
      method: 'isotonic';
      /** @description Observations the calibration was fitted on */
      samples: number;
      /** @description The stored knots, x ascending (linear between them) */
      points: components['schemas']['ReliabilityPointDto'][];
    };
    OverviewJobFailureDto: {
      /** Format: uuid */
      id: string;
      /** @example coverage.backfill */
      name: string;
      error: string | null;
      /** Format: date-time */
      finishedAt: string | null;
    };
    OverviewJobsDto: {
      /** @description Runs created in the window per status (queued, running, succeeded, failed), zeros included */
      byStatus: {
        [key: string]: number;
      };
      /** @description The 5 most recently created failed runs (any time, as GET /admin/jobs?status=failed lists them) */
      recentFailures: components['schemas']['OverviewJobFailureDto'][];
    };
    ConsoleOverviewDto: {
      window: components['schemas']['OverviewWindowDto'];
      /** @description Every day of the window, zero days included */
      coverageByDay: components['schemas']['OverviewCoverageDayDto'][];
      totals: components['schemas']['OverviewTotalsDto'];
      /** @description Sessions per route-trace decision reason (reasons the monitoring stats do not know count as `other`); zero counts are absent */
      decisionReasons: {
        [key: string]: number;
      };
      /** @description Ten bins of width 10 of the self-evaluation confidence (0..100), zeros included */
      confidenceHistogram: components['schemas']['ConfidenceBinDto'][];
      /** @description The intent router's isotonic calibration as stored in the tenant's config; null without one */
      reliability: components['schemas']['ReliabilityDto'] | null;
      /** @description The 5 most frequent gaps, as GET /admin/coverage/gaps gives them */
      topGaps: components['schemas']['CoverageGapDto'][];
      jobs: components['schemas']['OverviewJobsDto'];
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
  HealthController_check: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Process alive and database reachable (`up`, or `busy` while a long statement runs) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': unknown;
        };
      };
      /** @description Database unreachable, or no answer for 30 s */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MetricsController_scrape: {
    parameters: {
      query?: never;
      header: {
        authorization: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text exposition format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description METRICS_TOKEN is set and the bearer token is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  TenantsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TenantDto'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  TenantsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateTenantDto'];
      };
    };
    responses: {
      /** @description The tenant and its two API keys (shown only now) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedTenantDto'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Name already taken */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  TenantsController_limits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EffectiveLimitsDto'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  TenantsController_setLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TenantLimitsChangeDto'];
      };
    };
    responses: {
      /** @description The effective limits after the change */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EffectiveLimitsDto'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_list: {
    parameters: {
      query?: {
        /** @description The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyDto'][];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_create: {
    parameters: {
      query?: {
        /** @description The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateApiKeyDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IssuedApiKeyDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_current: {
    parameters: {
      query?: {
        /** @description The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CurrentCallerDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_revoke: {
    parameters: {
      query?: {
        /** @description The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such key in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_rotate: {
    parameters: {
      query?: {
        /** @description The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RotateApiKeyDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IssuedApiKeyDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such key in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuditController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description The platform admin: one tenant (omit for every tenant); operators omit it */
        tenantId?: string;
        /** @description Entries at or after this time (ISO 8601) */
        from?: string;
        /** @description Entries before this time (ISO 8601) */
        to?: string;
        /** @description snake_case resource type */
        resourceType?: string;
        action?: string;
        /** @description Entries written with this key */
        actorKeyId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuditController_export: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description The platform admin: one tenant (omit for every tenant); operators omit it */
        tenantId?: string;
        /** @description Entries at or after this time (ISO 8601) */
        from?: string;
        /** @description Entries before this time (ISO 8601) */
        to?: string;
        /** @description snake_case resource type */
        resourceType?: string;
        action?: string;
        /** @description Entries written with this key */
        actorKeyId?: string;
        format?: 'csv';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuditController_settings: {
    parameters: {
      query?: {
        /** @description The tenant the platform admin acts for; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditSettingsDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuditController_setSettings: {
    parameters: {
      query?: {
        /** @description The tenant the platform admin acts for; operators omit it */
        tenantId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AuditSettingsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditSettingsDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SessionsController_ingest: {
    parameters: {
      query?: never;
      header: {
        'idempotency-key': string;
        /** @description Makes retries safe: a repeat with the same key (per tenant) and body returns the session stored first instead of a duplicate; the same key with another body → 422. 1-200 printable ASCII characters. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IngestSessionDto'];
      };
    };
    responses: {
      /** @description The stored session, already self-evaluated and coverage-checked when no LLM is configured */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionViewDto'];
        };
      };
      /** @description Invalid body; the offending fields are named */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description conversationId is not a conversation of this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was already used with a different body */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SessionsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such session in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  JobsController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        name?: string;
        status?: 'queued' | 'running' | 'succeeded' | 'failed';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Job runs of this tenant, newest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobRunPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  JobsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobRunDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such run in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CoverageController_report: {
    parameters: {
      query?: {
        /** @description First day (inclusive) in the time zone; default 29 days before `to` */
        from?: string;
        /** @description Last day (inclusive) in the time zone; default today. Must not be before `from`; at most 366 days */
        to?: string;
        /** @description Only sessions of this channel */
        channel?: string;
        /** @description Time zone for day boundaries; default the tenant's (UTC unless configured) */
        timeZone?: string;
        /** @description Evaluator version; default the current one */
        evaluatorVersion?: string;
        /** @description Breakdowns to return (comma-separated or repeated): day, channel, reason, layer (uncovered sessions by failure layer; reads each uncovered session, so only when asked). Default day, channel, reason. */
        groupBy?: ('day' | 'channel' | 'reason' | 'layer')[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Coverage rate of the current (or given) evaluator version over a calendar-day window */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CoverageReportDto'];
        };
      };
      /** @description Bad date, from after to, window over 366 days, unknown time zone, groupBy or evaluator version */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CoverageController_gaps: {
    parameters: {
      query?: {
        /** @description First day (inclusive) in the time zone; default 29 days before `to` */
        from?: string;
        /** @description Last day (inclusive) in the time zone; default today. Must not be before `from`; at most 366 days */
        to?: string;
        /** @description Only sessions of this channel */
        channel?: string;
        /** @description Time zone for day boundaries; default the tenant's (UTC unless configured) */
        timeZone?: string;
        /** @description Evaluator version; default the current one */
        evaluatorVersion?: string;
        /** @description Most frequent gaps to return (1..500) */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Uncovered queries grouped by normalized text, most frequent first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CoverageGapsDto'];
        };
      };
      /** @description Bad date, from after to, limit outside 1..500, unknown time zone or evaluator version */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CoverageController_reEvaluate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ReEvaluateDto'];
      };
    };
    responses: {
      /** @description Backfill queued; follow it at GET /admin/jobs/{jobId} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobAcceptedDto'];
        };
      };
      /** @description Unknown evaluator version, bad date or from after to */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        domain?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DocumentPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_upsert: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpsertDocumentDto'];
      };
    };
    responses: {
      /** @description Stored; `status` says created, updated or unchanged */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UpsertResultDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_bulk: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | components['schemas']['UpsertDocumentDto'][]
          | {
              documents: components['schemas']['UpsertDocumentDto'][];
            }
          | string;
        'application/x-ndjson':
          | components['schemas']['UpsertDocumentDto'][]
          | {
              documents: components['schemas']['UpsertDocumentDto'][];
            }
          | string;
      };
    };
    responses: {
      /** @description One result per item, in order */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkImportResultDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DocumentDetailDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such document in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted with its chunks */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such document in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_getConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RetrievalSettingsViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_putConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RetrievalSettingsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RetrievalSettingsViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_getGrading: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GradingViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_resetGrading: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GradingViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_fitGrading: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FitGradingDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GradingFitResultDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeController_lookup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LookupDto'];
      };
    };
    responses: {
      /** @description LookupResult (docs/spec/retrieval.md) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LookupResultDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeImportController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | components['schemas']['UpsertDocumentDto'][]
          | {
              documents: components['schemas']['UpsertDocumentDto'][];
            }
          | string;
        'application/x-ndjson':
          | components['schemas']['UpsertDocumentDto'][]
          | {
              documents: components['schemas']['UpsertDocumentDto'][];
            }
          | string;
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImportStartedDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeImportController_status: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImportStatusDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such import in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeFilesController_upload: {
    parameters: {
      query?: never;
      header: {
        'idempotency-key': string;
        /** @description A retry with the same key and the same files answers the first upload (the same importId) */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'multipart/form-data': {
          file: string[];
          /** @example robot-arm */
          domain?: string;
          /** @example 示教器, teach pendant */
          keywords?: string;
          /**
           * @description A JSON object
           * @example {"product":"TP10","lang":"zh"}
           */
          metadata?: string;
        };
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UploadStartedDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The request is over UPLOAD_MAX_REQUEST_BYTES, or every file is over a limit */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Not multipart/form-data, or no file of a supported type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeFilesController_download: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The original bytes, with their media type and file name */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such document in this tenant, or it was not made from a file */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeChunksController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChunkPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such document in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  KnowledgeChunksController_edit: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        chunkIndex: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['EditChunkDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChunkViewDto'];
        };
      };
      /** @description Bad chunkIndex or body (details.fields names them); nothing is written */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such document or chunk in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  EvaluationController_evaluate: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Re-runs the self-evaluation now (LLM when configured, rule fallback otherwise) and returns it */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SelfEvaluationDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such session in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The session is still PENDING/RUNNING */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  FeedbackController_submit: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SubmitFeedbackDto'];
      };
    };
    responses: {
      /** @description not_useful → BAD_CASE; useful → one AUTO case; repeats are idempotent */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FeedbackResultDto'];
        };
      };
      /** @description Invalid feedback value, id or comment (over 1,000 characters) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such session in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Session still PENDING/RUNNING, or useful on a session with no answer (FAILED) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_listBadCases: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description Only bad cases whose review has this status (a case never reviewed is OPEN) */
        status?: 'OPEN' | 'RESOLVED';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Sessions marked not useful, newest first (cursor pagination), filterable by review status */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BadCasePageDto'];
        };
      };
      /** @description status not OPEN or RESOLVED, or an invalid cursor/limit */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_badCaseReport: {
    parameters: {
      query?: {
        /** @description Bad cases marked (feedback time) at or after this ISO-8601 instant with a zone; default: no lower bound */
        from?: string;
        /** @description Bad cases marked before this ISO-8601 instant with a zone (excluded); default: no upper bound */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Bad cases marked in the window, counted per failure layer and attribution rule */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BadCaseReportDto'];
        };
      };
      /** @description from/to not an ISO-8601 instant with a zone, or from not before to */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_acceptExample: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sessionId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AcceptExampleDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AcceptExampleResultDto'];
        };
      };
      /** @description Invalid intent, the intent has no enabled rule, or the question cannot be an example (too long, rule full) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No session of this tenant marked not_useful with this id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The question is already a semantic example of the intent's rule */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_review: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sessionId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PutBadCaseReviewDto'];
      };
    };
    responses: {
      /** @description The bad case with its review */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BadCaseDto'];
        };
      };
      /** @description Empty body, an intent no rule of the tenant names, a documentId that is not a knowledge document of the tenant, a note over 1,000 characters, or an invalid status */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No session of this tenant marked not_useful with this id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_settings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CaseLibrarySettingsDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_setSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PutCaseLibrarySettingsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CaseLibrarySettingsDto'];
        };
      };
      /** @description threshold missing, not a number, or outside (0, 1] */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_listCases: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        faultCategory?: 'GENERAL' | 'MECHANICAL' | 'ELECTRICAL' | 'SOFTWARE' | 'COMMUNICATION' | 'CONFIGURATION' | 'OPERATION' | 'SAFETY' | 'OTHER';
        sourceType?: 'AUTO' | 'MANUAL';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Active cases, newest first (cursor pagination), filterable by faultCategory/sourceType */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CasePageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_createCase: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateCaseDto'];
      };
    };
    responses: {
      /** @description A MANUAL case */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CaseDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_getCase: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CaseDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such active case in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_retractCase: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Retracted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such active case in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReviewController_updateCase: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateCaseDto'];
      };
    };
    responses: {
      /** @description Edits query, answer, faultCategory and/or errorCode (null clears errorCode); a new query or answer is what the chat answers with from the next message */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CaseDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such active case in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MonitoringController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description Last activity at or after. A day YYYY-MM-DD in the tenant's time zone (whole day) or an ISO-8601 instant with a zone */
        from?: string;
        /** @description Last activity at or before (included). A day YYYY-MM-DD in the tenant's time zone (whole day) or an ISO-8601 instant with a zone */
        to?: string;
        channel?: string;
        /** @description Only conversations with at least one session in this status */
        status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'BAD_CASE';
        /** @description Only conversations with at least one session routed to this intent */
        intent?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Conversations of this tenant, latest activity first (keyset cursor) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConversationPageDto'];
        };
      };
      /** @description Bad date, from after to, limit outside 1..200, unknown status, malformed cursor */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MonitoringController_detail: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every session with route trace, tool invocations, self-evaluation, coverage, feedback, latency */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConversationDetailDto'];
        };
      };
      /** @description id is not a UUID */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such conversation in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MonitoringController_stats: {
    parameters: {
      query?: {
        /** @description Sessions created at or after. A day YYYY-MM-DD in the tenant's time zone (whole day) or an ISO-8601 instant with a zone. Default: 29 days before `to` */
        from?: string;
        /** @description Sessions created at or before (included). A day YYYY-MM-DD in the tenant's time zone (whole day) or an ISO-8601 instant with a zone. Default: end of today */
        to?: string;
        /** @description Add a per-day breakdown (days in the tenant's time zone) */
        groupBy?: 'day';
        /** @description Add `agreement` (Cohen's κ of self-evaluation and of coverage against the feedback of the window). Off by default: the figures read the feedback rows of the window (~200 ms at 10k feedbacks), the rest of the stats reads rollups only */
        agreement?: 'true' | 'false';
        /** @description With agreement=true: a self-evaluation with confidence / 100 at or above this reads as "good" (predicts useful). In [0, 1]; default 0.6, the LLM rubric's lower bound of "mostly supported" */
        selfEvaluationThreshold?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Aggregates over sessions created in the window (default: last 30 days, tenant time zone) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatsDto'];
        };
      };
      /** @description Bad date, from after to, window over 366 days, unknown groupBy */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MonitoringController_rebuildStats: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Rebuilds this tenant's stats rollup from its sessions and coverage decisions (the backfill; the stats stay exact meanwhile) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatsRebuildDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description Only rules of this intent */
        intent?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentRulePageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateIntentRuleDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentRuleViewDto'];
        };
      };
      /** @description Invalid rule (no matcher, bad regex, wrong vector dimension, limits), fields named */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_createMany: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['BulkCreateIntentRulesDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentRuleViewDto'][];
        };
      };
      /** @description A rule is invalid: nothing is created, the fields are named `rules[i].<field>` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_evaluate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['EvaluateIntentRulesDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentEvaluationReportDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentRuleViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such rule in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such rule in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateIntentRuleDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentRuleViewDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such rule in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_status: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentStatusDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_getConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          /** @description The config version, e.g. "3" (send it as If-Match to PUT) */
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentConfigDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentAdminController_putConfig: {
    parameters: {
      query?: never;
      header?: {
        /** @description Apply only if the config is still this version (the ETag of GET, or a fit's configVersion); otherwise 412 */
        'If-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description Any subset of the config keys (see IntentConfigDto); weights may be partial */
    requestBody: {
      content: {
        'application/json': {
          weights?: {
            rule?: number;
            semantic?: number;
            llm?: number;
          };
          semanticThreshold?: number;
          conflictThreshold?: number;
          grayZoneThreshold?: number;
          minTriggerThreshold?: number;
          clarifyThreshold?: number;
          multiIntentThreshold?: number;
          llmJudgeEnabled?: boolean;
          semanticMatcherEnabled?: boolean;
          semanticMatcherTimeoutMs?: number;
          llmJudgeTimeoutMs?: number;
          semanticTopK?: number;
          /** @enum {string} */
          semanticAggregation?: 'mean' | 'max' | 'topk_mean' | 'centroid_knn' | 'classifier';
          semanticExampleK?: number;
          /** @description Isotonic map {method, x, y} proposed by a fit; null removes it */
          calibration?: Record<string, never> | null;
        };
      };
    };
    responses: {
      /** @description The effective config (ETag: its new version) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentConfigDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description If-Match names an older config version */
      412: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentRouteController_route: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RouteIntentDto'];
      };
    };
    responses: {
      /** @description RouteResult (docs/spec/intent-routing.md) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RouteResultDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ChatController_executeChat: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChatRequestDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChatResponseDto'];
          'text/event-stream': components['schemas']['ChatResponseDto'];
        };
      };
      /** @description Empty or over-long message (max 4,000 characters), malformed conversationId, unknown media type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description conversationId is not a conversation of this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Database unavailable; nothing was recorded */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  OpenAiCompatController_listModels: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{object: "list", data: [{id: "arbiter", object: "model", created, owned_by}]}` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description Missing or invalid key (`Authorization: Bearer <client key>` or X-Api-Key); OpenAI's `{error: {message, type, code}}` shape
       *
       *     Missing or invalid X-Api-Key
       */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  OpenAiCompatController_createCompletion: {
    parameters: {
      query?: never;
      header?: {
        /** @description Continue this conversation (a UUID returned by an earlier answer) */
        'X-Conversation-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChatCompletionRequestDto'];
      };
    };
    responses: {
      /** @description A `chat.completion` with `arbiter`, or its chunks as server-sent events */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A message with an unknown role or an empty or non-string content (`messages[3].role`), the last message not the user, `stream` not boolean, a malformed X-Conversation-Id */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description Missing or invalid key (`Authorization: Bearer <client key>` or X-Api-Key); OpenAI's `{error: {message, type, code}}` shape
       *
       *     Missing or invalid X-Api-Key
       */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description X-Conversation-Id is not a conversation of this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Over 64 messages or 32,000 characters of content */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DecisionsController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description Decisions at or after this instant (ISO-8601 with zone) */
        from?: string;
        /** @description Decisions at or before this instant (ISO-8601 with zone; included) */
        to?: string;
        /** @description Only decisions routed to this intent */
        intent?: string;
        /** @description Only decisions with this decision reason */
        reason?: 'rule_high_confidence' | 'semantic_override' | 'no_match' | 'llm_judge' | 'fusion_fallback' | 'clarify_resolved' | 'semantic_fallback';
        /** @description Only decisions that asked (true) or did not ask (false) a clarifying question */
        needClarify?: 'true' | 'false';
        /** @description Only decisions of `POST /ai/intent/route` (route) or of chat turns (chat) */
        source?: 'route' | 'chat';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DecisionPageDto'];
        };
      };
      /** @description A filter is malformed or from is after to (the field is named) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DecisionsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DecisionDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such decision in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DecisionsController_label: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LabelDecisionDto'];
      };
    };
    responses: {
      /** @description The review-set example */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LabelledExampleDto'];
        };
      };
      /** @description intent malformed, or no rule of the tenant names it (UNKNOWN_INTENTS lists it) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such decision in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DecisionsController_settings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DecisionLogSettingsDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DecisionsController_setSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DecisionLogSettingsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DecisionLogSettingsDto'];
        };
      };
      /** @description retentionDays is not an integer in [1, 3650] */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  LabelledSetsController_snapshot: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LabelledSnapshotRequestDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LabelledSnapshotDto'];
        };
      };
      /** @description Bad name or sources, or nothing to take */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  LabelledSetsController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
        /** @description Only the versions of this set name */
        name?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LabelledSetPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  LabelledSetsController_upload: {
    parameters: {
      query?: {
        /** @description Set name (1-100 letters, digits, "_", "-" or ".", starting with a letter or digit); for a JSONL body, where it cannot go into the body */
        name?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UploadLabelledSetDto'];
        'application/x-ndjson': components['schemas']['UploadLabelledSetDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LabelledSetDto'];
        };
      };
      /** @description Invalid name or examples (each bad JSONL line is named `line N`, each array item `examples[i]`), or labels naming unknown intents (UNKNOWN_INTENTS lists them) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  LabelledSetsController_get: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LabelledSetDetailDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such labelled set in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  LabelledSetsController_delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such labelled set in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentFitController_request: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IntentFitRequestDto'];
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentFitDto'];
        };
      };
      /** @description Bad body (fields named), fewer than 2 examples per intent or no out-of-scope example, or labels naming unknown intents */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such labelled set in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentFitController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentFitPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentFitController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentFitDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such fit in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentReplayController_request: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IntentReplayRequestDto'];
      };
    };
    responses: {
      /** @description Nothing in scope: finished with zero counts */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentReplayDto'];
        };
      };
      /** @description Queued; GET /admin/intent/replays/:id for the report */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentReplayDto'];
        };
      };
      /** @description Bad window or ids, or an invalid candidate (config.<key> / rules[i].<field> named) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentReplayController_list: {
    parameters: {
      query?: {
        /** @description Page size */
        limit?: number;
        /** @description `nextCursor` of the previous page (opaque) */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentReplayPageDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  IntentReplayController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IntentReplayDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such replay in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description This tenant's webhooks, newest first (secrets are never listed) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookListDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookDto'];
      };
    };
    responses: {
      /** @description The subscription and its signing secret (shown only here and on rotate) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecretDto'];
        };
      };
      /** @description URL not https, too long, or resolving to a private/loopback/link-local address; unknown event */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted with its delivery log */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateWebhookDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_rotate: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RotateWebhookSecretDto'];
      };
    };
    responses: {
      /** @description The new secret (shown only here); the previous one also signs until previousSecretExpiresAt */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecretDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_deliveries: {
    parameters: {
      query?: {
        limit?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The delivery log, newest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveryListDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_redeliver: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The new delivery of the same event, queued */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveryDto'];
        };
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such webhook or delivery in this tenant */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The webhook is disabled */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConsoleController_overview: {
    parameters: {
      query?: {
        /** @description First day (inclusive) in the tenant's time zone; default 29 days before `to` */
        from?: string;
        /** @description Last day (inclusive) in the tenant's time zone; default today. Must not be before `from`; at most 366 days */
        to?: string;
        /** @description Only sessions of this channel (1-32 letters, digits, "_" or "-") */
        channel?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Overview page: coverage per day, totals, decision reasons, confidence histogram, calibration, top gaps and job runs of a day window (tenant's time zone) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsoleOverviewDto'];
        };
      };
      /** @description from/to not a calendar day, from after to, window over 366 days, malformed channel (the body names the parameter) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or invalid X-Api-Key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The key is not an operator key */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
