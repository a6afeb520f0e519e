// kafka_metadata.mjs HOST:PORT [TOPIC]: one Kafka Metadata request (v1) over plain TCP, so the dev
// scripts can check a broker's readiness in ~50 ms instead of starting a JVM tool.
// Prints "brokers=N" and, with TOPIC, "partitions=P" (0 when the topic does not exist).
// Exit 0 when a broker answered with at least one live broker, 1 otherwise (refused, timeout,
// not ready yet). Protocol: https://kafka.apache.org/protocol (Metadata API key 3, version 1).
import net from 'node:net';

const [bootstrap, topic] = process.argv.slice(2);
if (!bootstrap) {
  console.error('usage: node kafka_metadata.mjs HOST:PORT [TOPIC]');
  process.exit(2);
}
const [host, port] = [bootstrap.slice(0, bootstrap.lastIndexOf(':')), Number(bootstrap.slice(bootstrap.lastIndexOf(':') + 1))];

function str16(s) {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeInt16BE(b.length);
  return Buffer.concat([len, b]);
}

function request() {
  const header = Buffer.alloc(8);
  header.writeInt16BE(3, 0);          // api_key Metadata
  header.writeInt16BE(1, 2);          // api_version 1
  header.writeInt32BE(1, 4);          // correlation_id
  const body = Buffer.alloc(4);
  body.writeInt32BE(-1, 0);           // topics = null: all topics
  const msg = Buffer.concat([header, str16('duepay-dev-probe'), body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(msg.length);
  return Buffer.concat([size, msg]);
}

// A cursor over the response; every read throws on a short buffer.
function parse(buf) {
  let o = 0;
  const need = (n) => { if (o + n > buf.length) throw new Error('short response'); };
  const i16 = () => { need(2); const v = buf.readInt16BE(o); o += 2; return v; };
  const i32 = () => { need(4); const v = buf.readInt32BE(o); o += 4; return v; };
  const s16 = () => { const n = i16(); if (n < 0) return null; need(n); const v = buf.toString('utf8', o, o + n); o += n; return v; };
  const skip = (n) => { need(n); o += n; };
  if (i32() !== 1) throw new Error('wrong correlation id');
  const brokers = i32();
  for (let b = 0; b < brokers; b++) { i32(); s16(); i32(); s16(); }     // node_id host port rack
  i32();                                                                 // controller_id
  const topics = new Map();
  const nTopics = i32();
  for (let t = 0; t < nTopics; t++) {
    const err = i16(); const name = s16(); skip(1);                      // error name is_internal
    const nParts = i32();
    for (let p = 0; p < nParts; p++) {
      i16(); i32(); i32();                                               // error index leader
      skip(4 * i32());                                                   // replicas
      skip(4 * i32());                                                   // isr
    }
    if (err === 0) topics.set(name, nParts);
  }
  return { brokers, topics };
}

const sock = net.connect({ host, port });
const timer = setTimeout(() => { sock.destroy(); process.exit(1); }, 3000);
let chunks = Buffer.alloc(0);
sock.on('connect', () => sock.write(request()));
sock.on('data', (d) => {
  chunks = Buffer.concat([chunks, d]);
  if (chunks.length < 4 || chunks.length < 4 + chunks.readInt32BE(0)) return;
  clearTimeout(timer);
  sock.end();
  try {
    const { brokers, topics } = parse(chunks.subarray(4, 4 + chunks.readInt32BE(0)));
    console.log(`brokers=${brokers}`);
    if (topic) console.log(`partitions=${topics.get(topic) ?? 0}`);
    process.exit(brokers > 0 ? 0 : 1);
  } catch (e) {
    console.error(`kafka_metadata: ${e.message}`);
    process.exit(1);
  }
});
sock.on('error', () => process.exit(1));
