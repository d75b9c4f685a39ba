-- Keeps the processes' row caches true (issue 32, app/db/row-cache.server.ts): a change of a
-- service account, or of a shop's settings, notifies the channel `row_changed:<schema>` at commit
-- with "<Table>:<key>" (the account's id, the shop's domain), and each process drops that entry.
-- The trigger's argument names the key column.
CREATE FUNCTION "row_changed_notify"() RETURNS trigger AS $$
DECLARE
  new_key text := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) ->> TG_ARGV[0] END;
  old_key text := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) ->> TG_ARGV[0] END;
BEGIN
  IF new_key IS NOT NULL THEN
    PERFORM pg_notify('row_changed:' || TG_TABLE_SCHEMA, TG_TABLE_NAME || ':' || new_key);
  END IF;
  IF old_key IS NOT NULL AND old_key IS DISTINCT FROM new_key THEN
    PERFORM pg_notify('row_changed:' || TG_TABLE_SCHEMA, TG_TABLE_NAME || ':' || old_key);
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER "SvcAccount_row_changed"
  AFTER INSERT OR UPDATE OR DELETE ON "SvcAccount"
  FOR EACH ROW EXECUTE FUNCTION "row_changed_notify"('id');

CREATE TRIGGER "Shop_row_changed"
  AFTER INSERT OR DELETE OR UPDATE OF "settings", "domain" ON "Shop"
  FOR EACH ROW EXECUTE FUNCTION "row_changed_notify"('domain');
