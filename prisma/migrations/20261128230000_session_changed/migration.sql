-- A shop's offline session kept by each process (issue 32, app/shop/session-cache.server.ts):
-- a stored, refreshed or deleted session notifies `row_changed:<schema>` with "Session:<id>" at
-- commit, as the service accounts and shop settings do (migration 20261128200000_row_changed).
CREATE TRIGGER "Session_row_changed"
  AFTER INSERT OR UPDATE OR DELETE ON "Session"
  FOR EACH ROW EXECUTE FUNCTION "row_changed_notify"('id');
