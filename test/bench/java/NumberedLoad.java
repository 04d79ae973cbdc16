/*
 * The fault tests' writer and verifier, run through BenchTool (compiled with it against the Kafka
 * jars): Kafka's own Java producer writes the source as a user's application would, and Kafka's
 * own Java consumer reads both sides for the verdict, so neither side of the comparison is
 * mirrorflow's client.
 *
 *   keep-producing --bootstrap B --topic T --partitions P --rate R [--value-bytes V] [--label L]
 *                  [--max-minutes M] [--producer k=v]...
 *       Writes numbered records to partitions 0 … P-1 in turn at R records/s overall until stdin
 *       closes or the process gets SIGTERM/SIGINT (at most M minutes, default 30). Record n of
 *       partition p has key "p:n", value "L-p-n-" padded with '.' to V bytes (default 100) and one
 *       header n = "n". The producer is Kafka's default: idempotent, acks=all, retries without
 *       limit within delivery.timeout.ms (120 s); the application adds only what a careful one
 *       does: a send refused before it was handed over (no metadata in max.block.ms, a producer
 *       in a fatal state) is tried again with the same record (a fatal producer is replaced
 *       first); a send whose callback reports an error is not written again (it may or may not
 *       be on the topic) and is reported as failed. A record counts as written only when its
 *       callback reports success.
 *       Every second: {"progress":{"sent":s,"acked":a,"failed":f}}. At the end, after every
 *       callback came in: {"result":{"sent":s,"acked":a,"failed":f,"ms":t,"errors":{"class":k,…},
 *       "partitions":{"0":{"sent":n,"acked":a,"failed":[n…]},…}}}: in partition p, records 0 … n-1
 *       were sent, and all but the `failed` ones acknowledged.
 *
 *   replica-verify --source-bootstrap S --source-topic T --target-bootstrap D --target-topic RT
 *                  --partitions P [--target-isolation read_committed] [--sent p=n,p=n…]
 *       Reads T and RT to their ends (RT to its last stable offset with read_committed, skipping
 *       aborted transactions) and pairs records by key ("p:n", as keep-producing writes them).
 *       Prints per partition {"source","target","missing","firstMissing":[n…],"duplicates",
 *       "outOfOrder","foreign","changed","sourceDuplicates","absentFromSource","firstAbsent":[n…]}
 *       under "partitions", and their sums under "totals": missing = source records not on the
 *       target; duplicates = target records whose key came before on the target (extra copies);
 *       outOfOrder = target first occurrences that came after a record that follows them on the
 *       source; foreign = target records not on the source (or in another partition); changed =
 *       target records whose value, headers or timestamp differ from the source's;
 *       absentFromSource (with --sent, the producer's counts) = records the producer sent that
 *       the source does not hold, which must all be among its failed sends.
 */
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

final class NumberedLoad {
    private NumberedLoad() {}

    // ---------------------------------------------------------------------------------------
    // keep-producing

    static void keepProducing(BenchTool.Args args) throws Exception {
        String topic = args.one("topic");
        int partitions = args.integer("partitions");
        double rate = Double.parseDouble(args.one("rate"));
        int valueBytes = args.has("value-bytes") ? args.integer("value-bytes") : 100;
        String label = args.has("label") ? args.one("label") : "r";
        long deadline = System.currentTimeMillis() + (args.has("max-minutes") ? args.longValue("max-minutes") : 30) * 60_000L;

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args.one("bootstrap"));
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "mirrorflow-fault-producer");
        for (String kv : args.all("producer")) {
            int eq = kv.indexOf('=');
            props.put(kv.substring(0, eq), kv.substring(eq + 1));
        }

        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch reported = new CountDownLatch(1);
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // anything written is ignored; the end of the stream is the signal
                }
            } catch (Exception e) {
                // a closed stream ends the run as EOF does
            }
            stop.set(true);
        }, "stdin-watch");
        stdin.setDaemon(true);
        stdin.start();
        // SIGTERM/SIGINT: stop sending, and let the main thread flush and report before the JVM ends.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.set(true);
            try {
                reported.await(150, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "report-on-signal"));

        long[] next = new long[partitions];
        AtomicLongArray acked = new AtomicLongArray(partitions);
        List<List<Long>> failed = new ArrayList<>();
        for (int p = 0; p < partitions; p++) failed.add(java.util.Collections.synchronizedList(new ArrayList<>()));
        Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
        AtomicLong ackedTotal = new AtomicLong();
        AtomicLong failedTotal = new AtomicLong();

        // A send that does not return is the one thing the progress lines cannot show: say where.
        AtomicLong sentSoFar = new AtomicLong();
        Thread mainThread = Thread.currentThread();
        Thread stallWatch = new Thread(() -> {
            long last = -1;
            while (!stop.get()) {
                try {
                    Thread.sleep(30_000);
                } catch (InterruptedException e) {
                    return;
                }
                long now = sentSoFar.get();
                if (now == last && !stop.get()) {
                    StringBuilder trace = new StringBuilder("no record sent for 30 s; the sending thread is at:\n");
                    for (StackTraceElement frame : mainThread.getStackTrace()) trace.append("    at ").append(frame).append('\n');
                    System.err.print(trace);
                    System.err.flush();
                }
                last = now;
            }
        }, "stall-watch");
        stallWatch.setDaemon(true);
        stallWatch.start();

        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        long started = System.nanoTime();
        long paceFrom = started;
        long sent = 0;
        long paced = 0;
        long lastProgress = System.currentTimeMillis();
        while (!stop.get() && System.currentTimeMillis() < deadline) {
            long now = System.nanoTime();
            if (System.currentTimeMillis() - lastProgress >= 1000) {
                lastProgress = System.currentTimeMillis();
                System.out.println("{\"progress\":{\"sent\":" + sent + ",\"acked\":" + ackedTotal.get() + ",\"failed\":" + failedTotal.get() + "}}");
                System.out.flush();
            }
            // Pace by the clock; after a stall (the producer blocked) catch up at most one second's worth.
            double due = (now - paceFrom) / 1e9 * rate;
            if (due - paced > rate) {
                paceFrom = now - (long) (paced / rate * 1e9) - 1_000_000_000L;
                due = paced + rate;
            }
            if (paced >= due) {
                Thread.sleep(1);
                continue;
            }
            int p = (int) (sent % partitions);
            long n = next[p];
            byte[] key = (p + ":" + n).getBytes(StandardCharsets.US_ASCII);
            StringBuilder value = new StringBuilder(label).append('-').append(p).append('-').append(n).append('-');
            while (value.length() < valueBytes) value.append('.');
            List<Header> headers = List.of(new RecordHeader("n", Long.toString(n).getBytes(StandardCharsets.US_ASCII)));
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, p, null, key, value.toString().getBytes(StandardCharsets.US_ASCII), headers);
            try {
                producer.send(record, (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet(p);
                        ackedTotal.incrementAndGet();
                    } else {
                        failed.get(p).add(n);
                        failedTotal.incrementAndGet();
                        errors.computeIfAbsent("callback " + error.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                    }
                });
                next[p]++;
                sent++;
                paced++;
                sentSoFar.set(sent);
            } catch (InterruptException e) {
                break;
            } catch (KafkaException | IllegalStateException e) {
                // Not handed over: nothing of it can be on the topic, so the same record goes again.
                errors.computeIfAbsent("send " + e.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                if (!(e instanceof TimeoutException)) {
                    // A producer in a fatal state refuses every send: replace it, as an application must.
                    producer.close(Duration.ofSeconds(30));
                    producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
                }
                Thread.sleep(100);
            }
        }
        producer.flush();
        producer.close();
        long ms = (System.nanoTime() - started) / 1_000_000;
        StringBuilder out = new StringBuilder("{\"result\":{\"sent\":").append(sent).append(",\"acked\":").append(ackedTotal.get())
            .append(",\"failed\":").append(failedTotal.get()).append(",\"ms\":").append(ms).append(",\"errors\":{");
        boolean first = true;
        for (Map.Entry<String, AtomicLong> e : new TreeMap<>(errors).entrySet()) {
            if (!first) out.append(',');
            first = false;
            out.append(BenchTool.jsonString(e.getKey())).append(':').append(e.getValue().get());
        }
        out.append("},\"partitions\":{");
        for (int p = 0; p < partitions; p++) {
            if (p > 0) out.append(',');
            List<Long> lost;
            synchronized (failed.get(p)) {
                lost = new ArrayList<>(failed.get(p));
            }
            out.append('"').append(p).append("\":{\"sent\":").append(next[p]).append(",\"acked\":").append(acked.get(p)).append(",\"failed\":").append(lost).append('}');
        }
        System.out.println(out.append("}}}"));
        System.out.flush();
        reported.countDown();
    }

    // ---------------------------------------------------------------------------------------
    // replica-verify

    /** A record of the source: where it stands in its partition, and what a copy must equal. */
    private record SourceRecord(long position, long fingerprint) {}

    /** Up to this many record numbers are listed for missing and absent records. */
    private static final int LISTED = 20;

    static void verify(BenchTool.Args args) throws Exception {
        String sourceTopic = args.one("source-topic");
        String targetTopic = args.one("target-topic");
        int partitions = args.integer("partitions");
        String targetIsolation = args.has("target-isolation") ? args.one("target-isolation") : "read_uncommitted";
        Map<Integer, Long> sent = new HashMap<>();
        if (args.has("sent")) {
            for (String entry : args.list("sent")) {
                int eq = entry.indexOf('=');
                sent.put(Integer.parseInt(entry.substring(0, eq)), Long.parseLong(entry.substring(eq + 1)));
            }
        }

        List<Map<Long, SourceRecord>> source = new ArrayList<>();
        long[] sourceCount = new long[partitions];
        long[] sourceDuplicates = new long[partitions];
        List<TopicPartition> sourceParts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            source.add(new HashMap<>());
            sourceParts.add(new TopicPartition(sourceTopic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = BenchTool.consumer(args.one("source-bootstrap"), "read_uncommitted")) {
            BenchTool.readToEnd(consumer, sourceParts, Map.of(), (record) -> {
                int p = record.partition();
                long n = number(record, p);
                long position = sourceCount[p]++;
                if (n < 0 || source.get(p).containsKey(n)) sourceDuplicates[p]++;
                else source.get(p).put(n, new SourceRecord(position, fingerprint(record)));
            });
        }

        long[] targetCount = new long[partitions];
        long[] duplicates = new long[partitions];
        long[] outOfOrder = new long[partitions];
        long[] foreign = new long[partitions];
        long[] changed = new long[partitions];
        long[] lastPosition = new long[partitions];
        java.util.Arrays.fill(lastPosition, -1);
        List<Set<Long>> seen = new ArrayList<>();
        List<TopicPartition> targetParts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            seen.add(new HashSet<>());
            targetParts.add(new TopicPartition(targetTopic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = BenchTool.consumer(args.one("target-bootstrap"), targetIsolation)) {
            BenchTool.readToEnd(consumer, targetParts, Map.of(), (record) -> {
                int p = record.partition();
                targetCount[p]++;
                long n = number(record, p);
                SourceRecord original = n < 0 ? null : source.get(p).get(n);
                if (original == null) {
                    foreign[p]++;
                    return;
                }
                if (!seen.get(p).add(n)) {
                    duplicates[p]++;
                    return;
                }
                if (original.fingerprint() != fingerprint(record)) changed[p]++;
                if (original.position() < lastPosition[p]) outOfOrder[p]++;
                else lastPosition[p] = original.position();
            });
        }

        long[] totals = new long[9];
        StringBuilder out = new StringBuilder("{\"partitions\":{");
        for (int p = 0; p < partitions; p++) {
            List<Long> missing = new ArrayList<>();
            long missingCount = 0;
            for (Long n : new java.util.TreeSet<>(source.get(p).keySet())) {
                if (seen.get(p).contains(n)) continue;
                missingCount++;
                if (missing.size() < LISTED) missing.add(n);
            }
            List<Long> absent = new ArrayList<>();
            long absentCount = 0;
            for (long n = 0; n < sent.getOrDefault(p, 0L); n++) {
                if (source.get(p).containsKey(n)) continue;
                absentCount++;
                if (absent.size() < LISTED) absent.add(n);
            }
            long[] row = {sourceCount[p], targetCount[p], missingCount, duplicates[p], outOfOrder[p], foreign[p], changed[p], sourceDuplicates[p], absentCount};
            for (int i = 0; i < row.length; i++) totals[i] += row[i];
            if (p > 0) out.append(',');
            String fields = counts(row);
            out.append('"').append(p).append("\":").append(fields, 0, fields.length() - 1);
            out.append(",\"firstMissing\":").append(missing).append(",\"firstAbsent\":").append(absent).append('}');
        }
        out.append("},\"totals\":").append(counts(totals)).append('}');
        System.out.println(out);
    }

    private static String counts(long[] row) {
        String[] names = {"source", "target", "missing", "duplicates", "outOfOrder", "foreign", "changed", "sourceDuplicates", "absentFromSource"};
        StringBuilder out = new StringBuilder("{");
        for (int i = 0; i < names.length; i++) out.append(i == 0 ? "" : ",").append('"').append(names[i]).append("\":").append(row[i]);
        return out.append('}').toString();
    }

    /** n of a key "p:n" written to partition p, or -1 for any other key. */
    private static long number(ConsumerRecord<byte[], byte[]> record, int partition) {
        if (record.key() == null) return -1;
        String key = new String(record.key(), StandardCharsets.US_ASCII);
        int colon = key.indexOf(':');
        if (colon < 0 || !key.substring(0, colon).equals(Integer.toString(partition))) return -1;
        try {
            return Long.parseLong(key.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A 64-bit FNV-1a over what a copy must keep besides the key: value, headers, timestamp. */
    private static long fingerprint(ConsumerRecord<byte[], byte[]> record) {
        long h = 0xcbf29ce484222325L;
        h = mix(h, record.value());
        for (Header header : record.headers()) {
            h = mix(h, header.key().getBytes(StandardCharsets.UTF_8));
            h = mix(h, header.value());
        }
        h ^= record.timestamp();
        return h * 0x100000001b3L;
    }

    private static long mix(long h, byte[] bytes) {
        if (bytes == null) return (h ^ 0xff) * 0x100000001b3L;
        h = (h ^ bytes.length) * 0x100000001b3L;
        for (byte b : bytes) h = (h ^ (b & 0xff)) * 0x100000001b3L;
        return h;
    }
}
