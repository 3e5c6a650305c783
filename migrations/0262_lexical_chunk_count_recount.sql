-- The BM25 statistics' chunk count (knowledge_lexical_stats.chunk_count, the N of the IDF and the divisor of the
-- average chunk length) drifted when a document was posted again with another number of chunks: the write read
-- the chunks its postings had counted after its upsert had already stored the new `chunk_count`, so the statistics
-- kept the old count (fixed in LexicalRepository.replaceDocuments; docs/retrieval.md "Lexical index"). Recount it
-- from the documents whose postings are in the index, as the write keeps it. On a cluster both tables are
-- distributed by tenant_id and co-located (migration 0260): each statement joins on it.
UPDATE knowledge_lexical_stats s SET chunk_count = d.n
  FROM (SELECT tenant_id, sum(chunk_count)::bigint AS n FROM knowledge_document WHERE lexical_version > 0 GROUP BY tenant_id) d
 WHERE d.tenant_id = s.tenant_id AND s.chunk_count <> d.n;
UPDATE knowledge_lexical_stats s SET chunk_count = 0
 WHERE s.chunk_count <> 0
   AND NOT EXISTS (SELECT 1 FROM knowledge_document d WHERE d.tenant_id = s.tenant_id AND d.lexical_version > 0);
