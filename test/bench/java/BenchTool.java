/*
 * The benchmark's Java side, compiled at bench time against the Kafka jars (`javac -cp lib/*`).
 * Java because the Kafka Java client is the fastest producer and consumer on the machine, and
 * because the harness must not measure mirrorflow with mirrorflow's own client.
 *
 *   produce --bootstrap B --topics t1,t2 --partitions P --records N --key-bytes K --value-bytes V
 *           --headers H [--rate R] [--seed S] [--producer k=v]... [--values json] [--producers K]
 *       N records per topic, record i of a topic to partition i % P (even spread), random
 *       (incompressible) values, keys = the record's index as 16 hex digits padded or cut to K
 *       bytes, H small headers. --rate R paces the sends at R records/s overall. --values json
 *       writes compressible JSON objects of V bytes instead (JsonValues). --producers K sends
 *       through K producers on K threads, each owning the partitions p with p % K = its number
 *       (the broker ceiling: several clients at once).
 *       Prints {"records":n,"bytes":b,"ms":t}.
 *   produce-transactional --bootstrap B --topic T1,T2 --partitions P --records N --per-transaction K
 *           --abort-every A [--compression C1,C2] [--linger-ms L] [--batch-size S] [--interleave] [--label L]
 *           [--large-every E --large-bytes V]
 *       Into each topic in turn (with its codec, or the one codec given for all): N records in
 *       transactions of K records (record j of a transaction to partition j % P), every A-th
 *       transaction aborted, written by a transactional producer with compression.type C (none),
 *       linger.ms L (5) and batch.size S (262144). --interleave adds a second transactional
 *       producer whose transactions overlap the first one's (each begins after the first has
 *       sent half of its records, and ends inside the first's in even rounds, after it in odd
 *       ones; two in three are aborted), and a non-transactional producer writing one record per
 *       partition while both transactions are open. Compressible values, keys, one header each;
 *       record ids start with `L-` when --label is given (repeated runs write distinct records).
 *       --large-every E pads the value of every E-th record of a transaction (j % E == E - 1) to
 *       V bytes, for a target that takes less.
 *       Prints {"records":n,"committed":c,"aborted":a} over all topics: c (which counts the
 *       non-transactional records) is what a read_committed consumer sees.
 *   digest --bootstrap B --topics t1,t2 [--skip-timestamps] [--isolation read_committed] [--insert-field name=value] [--strip-last-header KEY]
 *       Reads every partition from its start to the end offset it had when the command began
 *       (the last stable offset with --isolation read_committed, which also skips aborted
 *       transactions; read_uncommitted by default).
 *       Prints {"t1":{"0":{"count":n,"hash":"…"},…},…}: hash = SHA-256 over each record's
 *       timestamp (unless skipped), key, value and headers (length-prefixed, null ≠ empty).
 *       --insert-field hashes each value as Connect's InsertField$Value (static field) through
 *       JsonConverter would write it: the expected target of a transforming replicator.
 *       --strip-last-header hashes each record without its last header when that header has
 *       this key (the provenance header a replicator added), and adds "stripped": how many had it.
 *   log-bytes --bootstrap B --topics t1,t2
 *       Prints {"t1":bytes,…}: the size of each topic's log on the brokers (DescribeLogDirs), one
 *       replica per partition (the largest), so that what a replicator wrote can be compared with
 *       what the source holds, compression included.
 *   visible ...  see LiveLatency.java.
 *   keep-producing, replica-verify ...  see NumberedLoad.java (the fault tests' writer and verifier).
 *   group-consume ...  see GroupApp.java (a consumer group as an application runs it).
 *   latency --source-bootstrap S --source-topic T --target-bootstrap D --target-topic RT
 *           --from-offsets o0,o1,…
 *       Pairs source and target records by partition and offset (a fresh remote topic has the
 *       source's offsets) from the given offsets on, and prints the distribution of
 *       target timestamp − source timestamp (both topics use LogAppendTime, so this is arrival on
 *       the target minus arrival on the source), how many pairs had different keys, and the p99
 *       of each second of the window by source time (`p99BySecond`).
 */
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class BenchTool {
    /** No command may run longer than this: the harness has its own deadlines, this one is the backstop. */
    private static final long MAX_RUN_MS = 30 * 60_000L;

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) throw new IllegalArgumentException("usage: BenchTool produce|digest|latency [options]");
        Args args = new Args(Arrays.copyOfRange(argv, 1, argv.length));
        switch (argv[0]) {
            case "produce" -> produce(args);
            case "produce-transactional" -> produceTransactional(args);
            case "digest" -> digest(args);
            case "log-bytes" -> logBytes(args);
            case "latency" -> latency(args);
            case "soak-verify" -> soakVerify(args);
            case "visible" -> LiveLatency.run(args);
            case "keep-producing" -> NumberedLoad.keepProducing(args);
            case "replica-verify" -> NumberedLoad.verify(args);
            case "group-consume" -> GroupApp.groupConsume(args);
            default -> throw new IllegalArgumentException("unknown command " + argv[0]);
        }
    }

    // ---------------------------------------------------------------------------------------

    private static void produce(Args args) throws Exception {
        List<String> topics = args.list("topics");
        int partitions = args.integer("partitions");
        long records = args.longValue("records");
        int keyBytes = args.integer("key-bytes");
        int valueBytes = args.integer("value-bytes");
        int headers = args.integer("headers");
        double rate = args.has("rate") ? Double.parseDouble(args.one("rate")) : -1;
        SplittableRandom random = new SplittableRandom(args.has("seed") ? args.longValue("seed") : System.nanoTime());

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args.one("bootstrap"));
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(128L << 20));
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(4 << 20));
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "mirrorflow-bench-producer");
        for (String kv : args.all("producer")) {
            int eq = kv.indexOf('=');
            props.put(kv.substring(0, eq), kv.substring(eq + 1));
        }

        int producers = args.has("producers") ? args.integer("producers") : 1;
        boolean json = args.has("values") && args.one("values").equals("json");
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        long started = System.nanoTime();
        // A soak produces for longer than any other command: --max-minutes lifts the backstop.
        long deadline = System.currentTimeMillis() + Math.max(MAX_RUN_MS, (args.has("max-minutes") ? args.longValue("max-minutes") : 0) * 60_000L);
        long total = records * topics.size();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < producers; t++) {
            int share = t;
            SplittableRandom own = random.split();
            Properties ownProps = (Properties) props.clone();
            if (producers > 1) ownProps.put(ProducerConfig.CLIENT_ID_CONFIG, props.get(ProducerConfig.CLIENT_ID_CONFIG) + "-" + t);
            threads.add(new Thread(() -> {
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(ownProps, new ByteArraySerializer(), new ByteArraySerializer())) {
                    long sent = 0;
                    for (long i = 0; i < records; i++) {
                        int partition = (int) (i % partitions);
                        if (partition % producers != share) continue;
                        for (String topic : topics) {
                            if (failure.get() != null) return;
                            if (rate > 0) {
                                // Pace by the clock, not by sleeps of a fixed length: send what is due, then wait a tick.
                                for (;;) {
                                    double due = (System.nanoTime() - started) / 1e9 * rate / producers;
                                    if (sent < due) break;
                                    if (System.currentTimeMillis() > deadline) throw new IllegalStateException("produce ran past its deadline");
                                    Thread.sleep(0, 200_000);
                                }
                            }
                            byte[] key = key(i, keyBytes);
                            byte[] value;
                            if (json) {
                                value = JsonValues.value(own, i, valueBytes);
                            } else {
                                value = new byte[valueBytes];
                                fill(own, value);
                            }
                            List<Header> hs = new ArrayList<>(headers);
                            int headerBytes = 0;
                            for (int h = 0; h < headers; h++) {
                                byte[] hv = new byte[8];
                                fill(own, hv);
                                RecordHeader header = new RecordHeader(HEADER_KEYS[h % HEADER_KEYS.length], hv);
                                hs.add(header);
                                headerBytes += header.key().length() + hv.length;
                            }
                            producer.send(new ProducerRecord<>(topic, partition, null, key, value, hs), (metadata, error) -> {
                                if (error != null) failure.compareAndSet(null, error);
                                else acked.incrementAndGet();
                            });
                            bytes.addAndGet(key.length + value.length + headerBytes);
                            sent++;
                        }
                    }
                    producer.flush();
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-producer-" + t));
        }
        for (Thread thread : threads) thread.start();
        for (Thread thread : threads) thread.join();
        if (failure.get() != null) throw failure.get();
        if (acked.get() != total) throw new IllegalStateException("acknowledged " + acked.get() + " of " + total + " records");
        long ms = (System.nanoTime() - started) / 1_000_000;
        System.out.println("{\"records\":" + acked.get() + ",\"bytes\":" + bytes.get() + ",\"ms\":" + ms + "}");
    }

    // ---------------------------------------------------------------------------------------

    private static void produceTransactional(Args args) throws Exception {
        List<String> topics = args.list("topic");
        List<String> codecs = args.has("compression") ? args.list("compression") : List.of("none");
        if (codecs.size() != 1 && codecs.size() != topics.size()) throw new IllegalArgumentException("--compression takes one codec, or one per topic");
        long[] counts = new long[3]; // records sent, committed, aborted
        for (int i = 0; i < topics.size(); i++) produceTransactional(args, topics.get(i), codecs.get(codecs.size() == 1 ? 0 : i), counts);
        System.out.println("{\"records\":" + counts[0] + ",\"committed\":" + counts[1] + ",\"aborted\":" + counts[2] + "}");
    }

    /** Prefix of the record ids of produce-transactional (`--label`), so that repeated runs write distinct records. */
    private static String idPrefix = "";
    /** Every `largeEvery`-th record of a transaction gets a value of `largeBytes` (`--large-every`, `--large-bytes`); 0: none. */
    private static int largeEvery = 0;
    private static int largeBytes = 0;

    private static void produceTransactional(Args args, String topic, String compression, long[] counts) throws Exception {
        idPrefix = args.has("label") ? args.one("label") + "-" : "";
        largeEvery = args.has("large-every") ? args.integer("large-every") : 0;
        largeBytes = args.has("large-bytes") ? args.integer("large-bytes") : 0;
        int partitions = args.integer("partitions");
        int records = args.integer("records");
        int perTransaction = args.integer("per-transaction");
        int abortEvery = args.integer("abort-every");
        boolean interleave = args.has("interleave");
        String bootstrap = args.one("bootstrap");

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        props.put(ProducerConfig.LINGER_MS_CONFIG, args.has("linger-ms") ? args.one("linger-ms") : "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, args.has("batch-size") ? args.one("batch-size") : "262144");
        Properties plainProps = (Properties) props.clone();
        plainProps.put(ProducerConfig.CLIENT_ID_CONFIG, "mirrorflow-test-plain");
        Properties propsA = (Properties) props.clone();
        propsA.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx-a");
        Properties propsB = (Properties) props.clone();
        propsB.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx-b");

        try (KafkaProducer<byte[], byte[]> a = new KafkaProducer<>(propsA, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaProducer<byte[], byte[]> b = interleave ? new KafkaProducer<>(propsB, new ByteArraySerializer(), new ByteArraySerializer()) : null;
             KafkaProducer<byte[], byte[]> plain = interleave ? new KafkaProducer<>(plainProps, new ByteArraySerializer(), new ByteArraySerializer()) : null) {
            a.initTransactions();
            if (b != null) b.initTransactions();
            int transactions = (records + perTransaction - 1) / perTransaction;
            for (int t = 0; t < transactions; t++) {
                int size = Math.min(perTransaction, records - t * perTransaction);
                boolean abortA = (t + 1) % abortEvery == 0;
                a.beginTransaction();
                if (b == null) {
                    sendRange(a, topic, partitions, "a", t, 0, size);
                    end(a, abortA, size, counts);
                    continue;
                }
                // B's transaction begins while A's is open, after A's first half reached the
                // broker; a plain record lands while both are open. In even rounds B's transaction
                // ends inside A's (nested), in odd rounds A's ends first (crossing), so the
                // partition's aborted transactions, which the broker lists in the order they
                // ended, are not always in the order they began.
                boolean abortB = t % 3 != 0;
                int half = size / 2;
                sendRange(a, topic, partitions, "a", t, 0, half);
                a.flush();
                b.beginTransaction();
                sendRange(b, topic, partitions, "b", t, 0, half);
                b.flush();
                sendRange(plain, topic, partitions, "plain", t, 0, partitions);
                plain.flush();
                counts[0] += partitions;
                counts[1] += partitions;
                if (t % 2 == 0) {
                    sendRange(b, topic, partitions, "b", t, half, size);
                    end(b, abortB, size, counts);
                    sendRange(a, topic, partitions, "a", t, half, size);
                    end(a, abortA, size, counts);
                } else {
                    sendRange(a, topic, partitions, "a", t, half, size);
                    end(a, abortA, size, counts);
                    sendRange(b, topic, partitions, "b", t, half, size);
                    end(b, abortB, size, counts);
                }
            }
        }
    }

    private static void sendRange(KafkaProducer<byte[], byte[]> producer, String topic, int partitions, String who, int transaction, int from, int to) {
        for (int j = from; j < to; j++) {
            String id = idPrefix + who + "-" + transaction + "-" + j;
            String text = "value of " + id + ": " + "the quick brown fox jumps over the lazy dog ".repeat(3);
            if (largeEvery > 0 && j % largeEvery == largeEvery - 1) text = text + ".".repeat(Math.max(0, largeBytes - text.length()));
            byte[] value = text.getBytes(StandardCharsets.UTF_8);
            List<Header> headers = List.of(new RecordHeader("id", id.getBytes(StandardCharsets.UTF_8)));
            producer.send(new ProducerRecord<>(topic, j % partitions, null, id.getBytes(StandardCharsets.UTF_8), value, headers));
        }
    }

    /** Ends the producer's open transaction; a failed send fails the commit (or the flush before an abort). */
    private static void end(KafkaProducer<byte[], byte[]> producer, boolean abort, int size, long[] counts) {
        counts[0] += size;
        if (abort) {
            producer.flush();
            producer.abortTransaction();
            counts[2] += size;
        } else {
            producer.commitTransaction();
            counts[1] += size;
        }
    }

    private static final String[] HEADER_KEYS = {"bench-h0", "bench-h1", "bench-h2", "bench-h3", "bench-h4", "bench-h5", "bench-h6", "bench-h7"};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** The index in hex, right-aligned and padded with '0': unique, and sorted like the indexes. */
    private static byte[] key(long index, int keyBytes) {
        byte[] out = new byte[keyBytes];
        long rest = index;
        for (int j = keyBytes - 1; j >= 0; j--) {
            out[j] = HEX[(int) (rest & 0xf)];
            rest >>>= 4;
        }
        return out;
    }

    private static void fill(SplittableRandom random, byte[] bytes) {
        int i = 0;
        for (; i + 8 <= bytes.length; i += 8) {
            long r = random.nextLong();
            for (int b = 0; b < 8; b++) bytes[i + b] = (byte) (r >>> (8 * b));
        }
        if (i < bytes.length) {
            long r = random.nextLong();
            for (int b = 0; i < bytes.length; b++, i++) bytes[i] = (byte) (r >>> (8 * b));
        }
    }

    // ---------------------------------------------------------------------------------------

    private static void logBytes(Args args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args.one("bootstrap"));
        Set<String> topics = new HashSet<>(args.list("topics"));
        Map<TopicPartition, Long> largest = new HashMap<>();
        try (Admin admin = Admin.create(props)) {
            List<Integer> brokers = new ArrayList<>();
            for (Node node : admin.describeCluster().nodes().get()) brokers.add(node.id());
            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(brokers).allDescriptions().get();
            for (Map<String, LogDirDescription> byDir : dirs.values()) {
                for (LogDirDescription dir : byDir.values()) {
                    for (Map.Entry<TopicPartition, ReplicaInfo> replica : dir.replicaInfos().entrySet()) {
                        if (topics.contains(replica.getKey().topic())) largest.merge(replica.getKey(), replica.getValue().size(), Math::max);
                    }
                }
            }
        }
        Map<String, Long> byTopic = new TreeMap<>();
        for (String topic : topics) byTopic.put(topic, 0L);
        largest.forEach((tp, size) -> byTopic.merge(tp.topic(), size, Long::sum));
        StringBuilder out = new StringBuilder("{");
        byTopic.forEach((topic, size) -> out.append(out.length() > 1 ? "," : "").append(jsonString(topic)).append(':').append(size));
        System.out.println(out.append('}'));
    }

    private static void digest(Args args) throws Exception {
        boolean skipTimestamps = args.has("skip-timestamps");
        Map<String, Map<Integer, PartitionDigest>> result = new TreeMap<>();
        String isolation = args.has("isolation") ? args.one("isolation") : "read_uncommitted";
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(args.one("bootstrap"), isolation)) {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : args.list("topics")) {
                Map<Integer, PartitionDigest> byPartition = new TreeMap<>();
                for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                    byPartition.put(info.partition(), new PartitionDigest());
                    all.add(new TopicPartition(topic, info.partition()));
                }
                result.put(topic, byPartition);
            }
            UnaryOperator<byte[]> transform = args.has("insert-field") ? JsonValues.insertField(args.one("insert-field")) : UnaryOperator.identity();
            String strip = args.has("strip-last-header") ? args.one("strip-last-header") : null;
            readToEnd(consumer, all, Map.of(), (record) -> result.get(record.topic()).get(record.partition()).add(record, skipTimestamps, transform, strip));
        }
        StringBuilder out = new StringBuilder("{");
        boolean firstTopic = true;
        for (Map.Entry<String, Map<Integer, PartitionDigest>> topic : result.entrySet()) {
            if (!firstTopic) out.append(',');
            firstTopic = false;
            out.append(jsonString(topic.getKey())).append(":{");
            boolean first = true;
            for (Map.Entry<Integer, PartitionDigest> p : topic.getValue().entrySet()) {
                if (!first) out.append(',');
                first = false;
                out.append('"').append(p.getKey()).append("\":{\"count\":").append(p.getValue().count)
                    .append(",\"stripped\":").append(p.getValue().stripped)
                    .append(",\"hash\":\"").append(p.getValue().hex()).append("\"}");
            }
            out.append('}');
        }
        System.out.println(out.append('}'));
    }

    private static final class PartitionDigest {
        private final MessageDigest sha;
        private final ByteBuffer scratch = ByteBuffer.allocate(8);
        long count;
        /** Records hashed without their last header (--strip-last-header). */
        long stripped;

        PartitionDigest() throws Exception {
            sha = MessageDigest.getInstance("SHA-256");
        }

        void add(ConsumerRecord<byte[], byte[]> record, boolean skipTimestamps) {
            add(record, skipTimestamps, UnaryOperator.identity());
        }

        void add(ConsumerRecord<byte[], byte[]> record, boolean skipTimestamps, UnaryOperator<byte[]> valueTransform) {
            add(record, skipTimestamps, valueTransform, null);
        }

        void add(ConsumerRecord<byte[], byte[]> record, boolean skipTimestamps, UnaryOperator<byte[]> valueTransform, String stripLastHeader) {
            count++;
            if (!skipTimestamps) putLong(record.timestamp());
            putBytes(record.key());
            putBytes(valueTransform.apply(record.value()));
            Header[] headers = record.headers().toArray();
            if (stripLastHeader != null && headers.length > 0 && headers[headers.length - 1].key().equals(stripLastHeader)) {
                headers = java.util.Arrays.copyOf(headers, headers.length - 1);
                stripped++;
            }
            putLong(headers.length);
            for (Header header : headers) {
                putBytes(header.key().getBytes(StandardCharsets.UTF_8));
                putBytes(header.value());
            }
        }

        private void putBytes(byte[] bytes) {
            if (bytes == null) {
                putLong(-1);
            } else {
                putLong(bytes.length);
                sha.update(bytes);
            }
        }

        private void putLong(long value) {
            scratch.clear();
            scratch.putLong(value);
            sha.update(scratch.array(), 0, 8);
        }

        String hex() {
            byte[] d = sha.digest();
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 16; i++) s.append(String.format("%02x", d[i]));
            return s.toString();
        }
    }

    // ---------------------------------------------------------------------------------------

    private static void latency(Args args) throws Exception {
        String sourceTopic = args.one("source-topic");
        String targetTopic = args.one("target-topic");
        List<String> from = args.list("from-offsets");
        Map<TopicPartition, Long> sourceStart = new HashMap<>();
        Map<TopicPartition, Long> targetStart = new HashMap<>();
        for (int p = 0; p < from.size(); p++) {
            sourceStart.put(new TopicPartition(sourceTopic, p), Long.parseLong(from.get(p)));
            targetStart.put(new TopicPartition(targetTopic, p), Long.parseLong(from.get(p)));
        }
        // Source side: timestamp and key of every record, by partition and offset.
        Map<Integer, Map<Long, long[]>> source = new HashMap<>();
        Map<Integer, Map<Long, byte[]>> sourceKeys = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(args.one("source-bootstrap"))) {
            readToEnd(consumer, new ArrayList<>(sourceStart.keySet()), sourceStart, (record) -> {
                source.computeIfAbsent(record.partition(), k -> new HashMap<>()).put(record.offset(), new long[] {record.timestamp()});
                sourceKeys.computeIfAbsent(record.partition(), k -> new HashMap<>()).put(record.offset(), record.key());
            });
        }
        List<Long> latencies = new ArrayList<>();
        List<Long> sourceTimes = new ArrayList<>();
        long[] unmatched = {0};
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(args.one("target-bootstrap"))) {
            readToEnd(consumer, new ArrayList<>(targetStart.keySet()), targetStart, (record) -> {
                long[] ts = source.getOrDefault(record.partition(), Map.of()).get(record.offset());
                byte[] key = sourceKeys.getOrDefault(record.partition(), Map.of()).get(record.offset());
                if (ts == null || !Arrays.equals(key, record.key())) {
                    unmatched[0]++;
                    return;
                }
                latencies.add(record.timestamp() - ts[0]);
                sourceTimes.add(ts[0]);
            });
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long sourceCount = source.values().stream().mapToLong(Map::size).sum();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sourceRecords", sourceCount);
        out.put("pairs", sorted.length);
        out.put("unmatched", unmatched[0]);
        out.put("p50", percentile(sorted, 0.50));
        out.put("p90", percentile(sorted, 0.90));
        out.put("p99", percentile(sorted, 0.99));
        out.put("p999", percentile(sorted, 0.999));
        out.put("max", sorted.length == 0 ? -1 : sorted[sorted.length - 1]);
        out.put("min", sorted.length == 0 ? -1 : sorted[0]);
        out.put("mean", sorted.length == 0 ? -1 : Arrays.stream(sorted).average().orElse(-1));
        out.put("p99BySecond", p99BySecond(sourceTimes, latencies));
        StringBuilder s = new StringBuilder("{");
        for (Map.Entry<String, Object> e : out.entrySet()) {
            if (s.length() > 1) s.append(',');
            s.append('"').append(e.getKey()).append("\":").append(e.getValue());
        }
        System.out.println(s.append('}'));
    }

    /**
     * The p99 of the latencies of each second of source time from the first record's on, as a JSON
     * array (-1 for a second without records): where in the window the slow records are.
     */
    private static String p99BySecond(List<Long> sourceTimes, List<Long> latencies) {
        long first = sourceTimes.stream().mapToLong(Long::longValue).min().orElse(0);
        TreeMap<Long, List<Long>> bySecond = new TreeMap<>();
        for (int i = 0; i < latencies.size(); i++) bySecond.computeIfAbsent((sourceTimes.get(i) - first) / 1000, k -> new ArrayList<>()).add(latencies.get(i));
        StringBuilder s = new StringBuilder("[");
        long last = bySecond.isEmpty() ? -1 : bySecond.lastKey();
        for (long k = 0; k <= last; k++) {
            if (s.length() > 1) s.append(',');
            List<Long> second = bySecond.get(k);
            s.append(second == null ? -1 : percentile(second.stream().mapToLong(Long::longValue).sorted().toArray(), 0.99));
        }
        return s.append(']').toString();
    }

    /** Latencies are counted per millisecond up to this; longer ones go to the last bucket (and `max` keeps the truth). */
    private static final int LATENCY_BUCKETS_MS = 600_000;

    private static void soakVerify(Args args) throws Exception {
        String sourceTopic = args.one("source-topic");
        String targetTopic = args.one("target-topic");
        int partitions = args.integer("partitions");
        long startMs = args.longValue("start-ms");
        // Source: the create timestamp of every record by partition and offset, and the digest.
        long[][] created = new long[partitions][];
        PartitionDigest[] sourceDigest = new PartitionDigest[partitions];
        List<TopicPartition> sourceParts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            sourceParts.add(new TopicPartition(sourceTopic, p));
            sourceDigest[p] = new PartitionDigest();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(args.one("source-bootstrap"))) {
            Map<TopicPartition, Long> end = consumer.endOffsets(sourceParts, Duration.ofSeconds(30));
            for (int p = 0; p < partitions; p++) created[p] = new long[(int) (long) end.get(sourceParts.get(p))];
            readToEnd(consumer, sourceParts, Map.of(), (record) -> {
                created[record.partition()][(int) record.offset()] = record.timestamp();
                sourceDigest[record.partition()].add(record, true);
            });
        }
        // Target: first occurrences by key (the record's index), duplicates, latency per minute.
        PartitionDigest[] targetDigest = new PartitionDigest[partitions];
        java.util.BitSet[] seen = new java.util.BitSet[partitions];
        long[] targetCount = new long[partitions];
        long[] duplicates = new long[partitions];
        long[] unpaired = {0};
        Map<Integer, int[]> histograms = new TreeMap<>();
        Map<Integer, long[]> maxByMinute = new HashMap<>();
        List<TopicPartition> targetParts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            targetParts.add(new TopicPartition(targetTopic, p));
            targetDigest[p] = new PartitionDigest();
            seen[p] = new java.util.BitSet(created[p].length);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(args.one("target-bootstrap"))) {
            readToEnd(consumer, targetParts, Map.of(), (record) -> {
                int p = record.partition();
                targetCount[p]++;
                long index = Long.parseLong(new String(record.key(), StandardCharsets.US_ASCII), 16);
                long offset = index / partitions;
                if (index % partitions != p || offset >= created[p].length) {
                    unpaired[0]++;
                    targetDigest[p].add(record, true);
                    return;
                }
                if (seen[p].get((int) offset)) {
                    duplicates[p]++;
                    return;
                }
                seen[p].set((int) offset);
                targetDigest[p].add(record, true);
                long latency = Math.max(0, record.timestamp() - created[p][(int) offset]);
                int minute = (int) Math.max(0, (record.timestamp() - startMs) / 60_000);
                histograms.computeIfAbsent(minute, k -> new int[LATENCY_BUCKETS_MS + 1])[(int) Math.min(latency, LATENCY_BUCKETS_MS)]++;
                long[] max = maxByMinute.computeIfAbsent(minute, k -> new long[1]);
                max[0] = Math.max(max[0], latency);
            });
        }
        StringBuilder out = new StringBuilder("{\"partitions\":{");
        for (int p = 0; p < partitions; p++) {
            if (p > 0) out.append(',');
            out.append('"').append(p).append("\":{\"source\":").append(sourceDigest[p].count)
                .append(",\"sourceHash\":\"").append(sourceDigest[p].hex())
                .append("\",\"target\":").append(targetCount[p])
                .append(",\"distinct\":").append(targetDigest[p].count)
                .append(",\"targetHash\":\"").append(targetDigest[p].hex())
                .append("\",\"duplicates\":").append(duplicates[p]).append('}');
        }
        out.append("},\"unpaired\":").append(unpaired[0]).append(",\"minutes\":[");
        boolean first = true;
        for (Map.Entry<Integer, int[]> minute : histograms.entrySet()) {
            int[] h = minute.getValue();
            long n = 0;
            for (int c : h) n += c;
            if (!first) out.append(',');
            first = false;
            out.append("{\"minute\":").append(minute.getKey()).append(",\"records\":").append(n)
                .append(",\"p50\":").append(histogramPercentile(h, n, 0.50))
                .append(",\"p99\":").append(histogramPercentile(h, n, 0.99))
                .append(",\"max\":").append(maxByMinute.get(minute.getKey())[0]).append('}');
        }
        System.out.println(out.append("]}"));
    }

    /** Nearest-rank percentile of a histogram with 1 ms buckets. */
    private static long histogramPercentile(int[] histogram, long total, double q) {
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int ms = 0; ms < histogram.length; ms++) {
            seen += histogram[ms];
            if (seen >= rank) return ms;
        }
        return histogram.length - 1;
    }

    /** Nearest-rank percentile. */
    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) return -1;
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    // ---------------------------------------------------------------------------------------

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        return consumer(bootstrap, "read_uncommitted");
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(8 << 20));
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(64 << 20));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "mirrorflow-bench-reader");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    interface RecordSink {
        void accept(ConsumerRecord<byte[], byte[]> record) throws Exception;
    }

    /** Reads each partition from `start` (or its beginning) to the end offset it has now. */
    static void readToEnd(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions, Map<TopicPartition, Long> start, RecordSink sink) throws Exception {
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        List<TopicPartition> pending = new ArrayList<>();
        for (TopicPartition tp : partitions) pending.add(tp);
        consumer.assign(pending);
        for (TopicPartition tp : pending) {
            if (start.containsKey(tp)) consumer.seek(tp, start.get(tp));
            else consumer.seekToBeginning(List.of(tp));
        }
        long deadline = System.currentTimeMillis() + MAX_RUN_MS;
        while (true) {
            pending.removeIf(tp -> consumer.position(tp) >= end.get(tp));
            if (pending.isEmpty()) return;
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("reading ran past its deadline; still pending " + pending);
            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
            for (ConsumerRecord<byte[], byte[]> record : records) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                if (record.offset() < end.get(tp)) sink.accept(record);
            }
        }
    }

    static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** `--name value` pairs; a name may repeat. */
    static final class Args {
        private final Map<String, List<String>> values = new HashMap<>();

        Args(String[] argv) {
            for (int i = 0; i < argv.length; i++) {
                if (!argv[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + argv[i]);
                String name = argv[i].substring(2);
                String value = i + 1 < argv.length && !argv[i + 1].startsWith("--") ? argv[++i] : "true";
                values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
        }

        boolean has(String name) {
            return values.containsKey(name);
        }

        String one(String name) {
            List<String> v = values.get(name);
            if (v == null) throw new IllegalArgumentException("missing --" + name);
            return v.get(v.size() - 1);
        }

        List<String> all(String name) {
            return values.getOrDefault(name, List.of());
        }

        List<String> list(String name) {
            return Arrays.asList(one(name).split(","));
        }

        int integer(String name) {
            return Integer.parseInt(one(name));
        }

        long longValue(String name) {
            return Long.parseLong(one(name));
        }
    }
}
