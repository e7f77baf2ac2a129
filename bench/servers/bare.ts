import fs from 'node:fs';
import Fastify from 'fastify';

// A bare Fastify route answering a fixed JSON body: the ceiling each benchmark compares against.
const body = process.env.BARE_BODY_FILE
  ? fs.readFileSync(process.env.BARE_BODY_FILE, 'utf8')
  : '{"status":{"code":0,"message":"SUCCESS"},"data":{}}';
const app = Fastify({ logger: false });
app.get('/', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
// The streaming ceiling of the export benchmark: the same bytes, read from a file and streamed.
const streamed = process.env.BARE_STREAM_FILE;
if (streamed)
  app.get('/stream', async (_request, reply) => reply.type('application/x-ndjson').send(fs.createReadStream(streamed)));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
