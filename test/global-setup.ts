/** Says, once per run, which database the tests use. */
export default function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const u = new URL(url);
    console.log(
      `Test database: PostgreSQL at ${u.host}${u.pathname} (a fresh schema per test file)`,
    );
  } else {
    console.log("Test database: embedded PGlite in memory (one per test file)");
  }
}
