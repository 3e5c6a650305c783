-- Tenant names are unique case-insensitively after trimming and NFKC (`TENANT-A`, `tenant-a` and
-- `ＴＥＮＡＮＴ-A` are one name). The API stores names trimmed and NFKC-normalized; this index enforces
-- the folded uniqueness for every writer.
-- Existing rows: a name whose folded form an older tenant already has keeps its row and id and gets
-- `-<first 8 characters of its id>` appended (the older tenant keeps the name), then every name is
-- stored trimmed and NFKC-normalized as the API now writes it.
WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY lower(btrim(normalize(name, NFKC))) ORDER BY created_at, id) AS n
  FROM tenant
)
UPDATE tenant t
SET name = left(btrim(normalize(t.name, NFKC)), 91) || '-' || left(t.id::text, 8)
FROM ranked r
WHERE r.id = t.id AND r.n > 1;

UPDATE tenant SET name = btrim(normalize(name, NFKC)) WHERE name <> btrim(normalize(name, NFKC));

CREATE UNIQUE INDEX uq_tenant_name_folded ON tenant (lower(normalize(name, NFKC)));
