/*
 * `visible`: replication latency as a consumer of the target sees it.
 *
 *   visible --source-bootstrap S --topic T --target-bootstrap D --target-topic RT --partitions P
 *           --rate R --records N --first-index F [--warm-up W] [--isolation read_committed] [--timeout-s X]
 *
 * One JVM, two threads. A paced producer writes W + N records at R records/s overall into T
 * (record i to partition i % P, acks=all, linger.ms=0), keys = F − W + i in 16 hex digits: the
 * first W (keys below F, 0 by default) are its warm-up, sent by the same warm producer just before
 * the timed ones and not timed themselves. Each record has a 256-byte random
 * value, and two 8-byte headers: `bench-h0` carries System.nanoTime() at the send, `bench-h1` is
 * random (the bulk workload's 304-byte shape). Meanwhile a consumer of RT (from its end when the
 * command starts, read_committed by default) takes every record the moment a poll returns it:
 * latency = that moment − the send time in its header, on the same clock. Records are matched by
 * key, never by offset, so commit markers and duplicates do not matter; a key seen twice counts as
 * a duplicate, keys below F (records from before) are ignored. It ends when every key was seen,
 * or at the deadline.
 *
 * A third thread reads T itself the same way (a consumer of the source, from its end): when the
 * machine is loaded, the paced producer falls behind and sends in bursts, and the JVM's threads
 * wait for a core, so send → visible on the target holds the bench's own delays too. Send →
 * visible on the source is those delays alone (the produce hop and a consumer's poll), and
 * visible on the source → visible on the target, per record, is what the replicator adds.
 *
 * Prints {"sent":n,"ms":the producer's time for all W + N records,"seen":s,"duplicates":d,"pairs":s,"p50":…,"p90":…,"p99":…,"p999":…,"max":…,
 * "mean":…,"source":{"pairs":…,"p50":…,…},"replication":{"pairs":…,"p50":…,…}} in milliseconds
 * (0.01 ms steps): the top-level figures send → visible on the target, `source` send → visible
 * on the source, `replication` visible on the source → visible on the target (records seen on both).
 */
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

final class LiveLatency {
    private LiveLatency() {}

    static void run(BenchTool.Args args) throws Exception {
        String topic = args.one("topic");
        String targetTopic = args.one("target-topic");
        int partitions = args.integer("partitions");
        int records = args.integer("records");
        long firstIndex = args.longValue("first-index");
        int warmUp = args.has("warm-up") ? args.integer("warm-up") : 0;
        double rate = Double.parseDouble(args.one("rate"));
        long deadline = System.currentTimeMillis() + (args.has("timeout-s") ? args.longValue("timeout-s") : 600) * 1000;

        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args.one("target-bootstrap"));
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, args.has("isolation") ? args.one("isolation") : "read_committed");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // An empty fetch waits at most this long; a fetch with records answers at once (fetch.min.bytes 1).
        consumerProps.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, "mirrorflow-bench-visible");
        long[] latencyMicros = new long[records];
        long[] sentNanos = new long[records];
        long[] targetSeenNanos = new long[records];
        // Written by the source's reader, read after it ended (Thread.join orders the two).
        long[] sourceSeenNanos = new long[records];
        Arrays.fill(sourceSeenNanos, Long.MIN_VALUE);
        BitSet seen = new BitSet(records);
        long duplicates = 0;
        AtomicReference<Exception> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicLong producerMs = new java.util.concurrent.atomic.AtomicLong(-1);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < partitions; p++) parts.add(new TopicPartition(targetTopic, p));
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            for (TopicPartition tp : parts) consumer.position(tp, Duration.ofSeconds(30));

            // The source's reader is at its end before the first record is sent.
            java.util.concurrent.CountDownLatch sourceReady = new java.util.concurrent.CountDownLatch(1);
            Thread sourceReader = new Thread(() -> {
                try {
                    readSource(args.one("source-bootstrap"), topic, partitions, firstIndex, records, sourceSeenNanos, deadline, sourceReady, failure);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                } finally {
                    sourceReady.countDown();
                }
            }, "visible-source");
            sourceReader.start();
            sourceReady.await();

            Thread producer = new Thread(() -> {
                try {
                    producerMs.set(produce(args.one("source-bootstrap"), topic, partitions, warmUp + records, firstIndex - warmUp, rate, deadline));
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "visible-producer");
            producer.start();
            int count = 0;
            while (count < records && System.currentTimeMillis() < deadline && failure.get() == null) {
                var batch = consumer.poll(Duration.ofMillis(50));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    long index = Long.parseLong(new String(record.key(), java.nio.charset.StandardCharsets.US_ASCII), 16) - firstIndex;
                    if (index < 0 || index >= records) continue;
                    if (seen.get((int) index)) {
                        duplicates++;
                        continue;
                    }
                    Header sent = record.headers().lastHeader("bench-h0");
                    seen.set((int) index);
                    sentNanos[(int) index] = ByteBuffer.wrap(sent.value()).getLong();
                    targetSeenNanos[(int) index] = now;
                    latencyMicros[(int) index] = (now - sentNanos[(int) index]) / 1000;
                    count++;
                }
            }
            producer.join(Math.max(1, deadline - System.currentTimeMillis()));
            sourceReader.join(Math.max(1, deadline - System.currentTimeMillis()));
        }
        if (failure.get() != null) throw failure.get();
        long[] sorted = new long[seen.cardinality()];
        int n = 0;
        for (int i = seen.nextSetBit(0); i >= 0; i = seen.nextSetBit(i + 1)) sorted[n++] = latencyMicros[i];
        // Send → visible on the source, and visible on the source → on the target, for the records seen on both.
        long[] sourceMicros = new long[n];
        long[] replicationMicros = new long[n];
        int m = 0;
        for (int i = seen.nextSetBit(0); i >= 0; i = seen.nextSetBit(i + 1)) {
            if (sourceSeenNanos[i] == Long.MIN_VALUE) continue;
            sourceMicros[m] = (sourceSeenNanos[i] - sentNanos[i]) / 1000;
            replicationMicros[m++] = (targetSeenNanos[i] - sourceSeenNanos[i]) / 1000;
        }
        StringBuilder out = new StringBuilder("{");
        out.append("\"sent\":").append(records).append(",\"ms\":").append(producerMs.get()).append(",\"seen\":").append(n).append(",\"duplicates\":").append(duplicates);
        distribution(out, sorted);
        out.append(",\"source\":{");
        distribution(out, Arrays.copyOf(sourceMicros, m));
        out.append("},\"replication\":{");
        distribution(out, Arrays.copyOf(replicationMicros, m));
        System.out.println(out.append("}}"));
    }

    /** Appends `"pairs":…,"p50":…,…,"max":…,"mean":…` of the values (micros, sorted here) to `out`. */
    private static void distribution(StringBuilder out, long[] micros) {
        Arrays.sort(micros);
        int n = micros.length;
        if (out.charAt(out.length() - 1) != '{') out.append(',');
        out.append("\"pairs\":").append(n);
        for (Map.Entry<String, Double> q : Map.of("p50", 0.50, "p90", 0.90, "p99", 0.99, "p999", 0.999).entrySet()) {
            out.append(",\"").append(q.getKey()).append("\":").append(ms(percentile(micros, q.getValue())));
        }
        out.append(",\"max\":").append(ms(n == 0 ? -1 : micros[n - 1]));
        out.append(",\"mean\":").append(ms(n == 0 ? -1 : (long) Arrays.stream(micros).average().orElse(-1)));
    }

    /**
     * Reads the source topic from its end (counting `ready` down once there) and notes, per record
     * of this run, when a poll first returned it; until every one was seen, the deadline, or a failure.
     */
    private static void readSource(
        String bootstrap,
        String topic,
        int partitions,
        long firstIndex,
        int records,
        long[] seenNanos,
        long deadline,
        java.util.concurrent.CountDownLatch ready,
        AtomicReference<Exception> failure
    ) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // As the target's reader: an empty fetch waits at most 20 ms.
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "mirrorflow-bench-visible-source");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < partitions; p++) parts.add(new TopicPartition(topic, p));
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            for (TopicPartition tp : parts) consumer.position(tp, Duration.ofSeconds(30));
            ready.countDown();
            BitSet seen = new BitSet(records);
            int count = 0;
            while (count < records && System.currentTimeMillis() < deadline && failure.get() == null) {
                var batch = consumer.poll(Duration.ofMillis(50));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    long index = Long.parseLong(new String(record.key(), java.nio.charset.StandardCharsets.US_ASCII), 16) - firstIndex;
                    if (index < 0 || index >= records || seen.get((int) index)) continue;
                    seen.set((int) index);
                    seenNanos[(int) index] = now;
                    count++;
                }
            }
        }
    }

    private static String ms(long micros) {
        return micros < 0 ? "-1" : String.format(java.util.Locale.ROOT, "%.2f", micros / 1000.0);
    }

    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) return -1;
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Sends the records at the rate; returns the milliseconds from the first send to the last acknowledgement. */
    private static long produce(String bootstrap, String topic, int partitions, int records, long firstIndex, double rate, long deadline) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "mirrorflow-bench-visible-producer");
        SplittableRandom random = new SplittableRandom();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            long started = System.nanoTime();
            for (int i = 0; i < records; i++) {
                if (failure.get() != null) throw failure.get();
                while (i >= (System.nanoTime() - started) / 1e9 * rate) {
                    if (System.currentTimeMillis() > deadline) throw new IllegalStateException("the paced producer ran past its deadline");
                    Thread.sleep(0, 200_000);
                }
                byte[] key = String.format("%016x", firstIndex + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                byte[] value = new byte[256];
                random.nextBytes(value);
                byte[] other = new byte[8];
                random.nextBytes(other);
                byte[] sent = ByteBuffer.allocate(8).putLong(System.nanoTime()).array();
                List<Header> headers = List.of(new RecordHeader("bench-h0", sent), new RecordHeader("bench-h1", other));
                producer.send(new ProducerRecord<>(topic, i % partitions, null, key, value, headers), (metadata, error) -> {
                    if (error != null) failure.compareAndSet(null, error);
                });
            }
            producer.flush();
            if (failure.get() != null) throw failure.get();
            return (System.nanoTime() - started) / 1_000_000;
        }
    }
}
