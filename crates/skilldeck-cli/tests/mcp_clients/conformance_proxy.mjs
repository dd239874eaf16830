// Forwards every HTTP request to `skilldeck mcp --http` with its bearer token added, for the
// official conformance suite, which cannot send a header of its own. Nothing else changes: the
// method, path, headers (Host and Origin included) and body go through as sent, and the answer,
// event streams included, comes back as the server gave it.
//
//   node conformance_proxy.mjs LISTEN_PORT UPSTREAM_URL TOKEN
import http from "node:http";

const [listen, upstream, token] = process.argv.slice(2);
const target = new URL(upstream);
http
  .createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const forward = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(forward);
  })
  .listen(Number(listen), "127.0.0.1", () => console.log(`listening on ${listen}`));
