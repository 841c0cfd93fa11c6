// The floor of an HTTP read on this machine, started by bench/compare.mjs as its own process: node:http with no
// framework, no auth and no validation, answering GET /users/<n> with one row of the raw select's table as JSON,
// through a pg Pool of the size Gatehouse uses. What any Node server that reads one row per request pays at least.
import http from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const ids = (await pool.query("select id from bench_users order by id")).rows.map((row) => row.id);

const server = http.createServer(async (request, response) => {
  if (request.url === "/health") {
    response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    return;
  }
  const index = Number(/^\/users\/(\d+)$/.exec(request.url ?? "")?.[1]);
  if (!Number.isInteger(index)) {
    response.writeHead(404).end();
    return;
  }
  try {
    const { rows } = await pool.query({
      name: "bench-user-by-id",
      text: "select id, email, display_name, created_at from bench_users where id = $1",
      values: [ids[index % ids.length]],
    });
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(rows[0] ?? null));
  } catch (error) {
    response.writeHead(500).end(String(error));
  }
});
server.listen(Number(process.env.PORT), "127.0.0.1");
process.once("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
