// The floor for refusing gRPC calls in Node (bench/overload's bursts): a bare node:http2 server that
// answers every stream trailers-only RESOURCE_EXHAUSTED at once, with no gRPC library and no admission.
// What it costs per call is what Node's HTTP/2 alone costs. Prints "listening <port>".
import { createServer } from "node:http2";

const server = createServer();
server.on("stream", (stream) => {
  stream.respond(
    { ":status": 200, "content-type": "application/grpc", "grpc-status": "8", "grpc-message": "server busy" },
    { endStream: true },
  );
  stream.resume();
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`);
});
