// Where the fleet's side effects land, on loopback in this process: an SMTP server that accepts every message (so
// the email workers do the whole delivery, TCP and SMTP dialogue included) and a webhook receiver that answers 200.
// Both only count; the bench reads the counts per phase.
import http from "node:http";
import net from "node:net";

/**
 * A minimal SMTP server: enough of RFC 5321 for nodemailer's client (EHLO without STARTTLS, MAIL, RCPT, DATA,
 * RSET, QUIT). Written here rather than taken from smtp-server so the bench needs nothing beyond what it states.
 */
export async function startSmtpSink() {
  const sink = { messages: 0, port: 0, close: null };
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = "";
    let inData = false;
    const reply = (line) => socket.write(`${line}\r\n`);
    reply("220 fleet-bench ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        if (inData) {
          // The body ends with a line holding a single dot; dot-stuffed lines inside never match it.
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) {
            // Keep only a tail long enough to catch a terminator split across chunks.
            if (buffer.length > 8) buffer = buffer.slice(-8);
            return;
          }
          buffer = buffer.slice(end + 5);
          inData = false;
          sink.messages++;
          reply("250 2.0.0 queued");
          continue;
        }
        const newline = buffer.indexOf("\r\n");
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO") reply("250-fleet-bench\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 52428800");
        else if (verb === "HELO") reply("250 fleet-bench");
        else if (verb === "DATA") {
          inData = true;
          reply("354 end with <CRLF>.<CRLF>");
          // A body that began in this same chunk starts right after the DATA line.
          buffer = `\r\n${buffer}`;
        } else if (verb === "QUIT") {
          reply("221 bye");
          socket.end();
          return;
        } else reply("250 ok");
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.port = server.address().port;
  sink.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return sink;
}

/** Answers 200 to every POST, counting them and the distinct webhook-ids (delivery is at least once). */
export async function startWebhookReceiver() {
  const receiver = { received: 0, ids: new Set(), port: 0, close: null };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      receiver.received++;
      // Bounded: a long run keeps at most this many ids to tell repeats apart.
      if (receiver.ids.size < 2_000_000) receiver.ids.add(String(request.headers["webhook-id"]));
      response.writeHead(200).end("ok");
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = server.address().port;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}
