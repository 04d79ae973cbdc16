import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the records behind src/kafka/wire/fixtures/java-producer-fetch-*.hex with Kafka's own Java
 * producer, so the wire specs decode bytes the reference implementation wrote, not bytes our
 * encoder made. Run by test/interop/capture-wire-fixtures.ts; prints one JSON line when done.
 *
 *   java -cp <kafka jars>:<classes> WireFixtureProducer <bootstrap>
 *
 * Topics (one partition each): wire-none, wire-gzip, wire-snappy, wire-lz4, wire-zstd hold the
 * same five records, each topic one batch in that codec; wire-txn holds a committed transaction of
 * two records, an aborted one of one record and a committed one of one record, each followed by
 * its control batch.
 */
public final class WireFixtureProducer {
    /** The first record's timestamp; the others are relative to it, one of them earlier. */
    static final long T = 1_700_000_000_000L;

    public static void main(String[] argv) throws Exception {
        String bootstrap = argv[0];
        String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
        List<NewTopic> topics = new ArrayList<>();
        for (String codec : codecs) topics.add(new NewTopic("wire-" + codec, 1, (short) 1));
        topics.add(new NewTopic("wire-txn", 1, (short) 1));
        topics.add(new NewTopic("wire-produce", 1, (short) 1));
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(topics).all().get();
        }

        for (String codec : codecs) {
            // A long linger and a large batch: the five records go in one batch.
            try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, codec, null)) {
                for (ProducerRecord<byte[], byte[]> record : records("wire-" + codec)) producer.send(record);
                producer.flush();
            }
        }

        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, "none", "wire-fixture-txn")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("wire-txn", 0, T, bytes("t0"), bytes("committed-0")));
            producer.send(new ProducerRecord<>("wire-txn", 0, T + 1, bytes("t1"), bytes("committed-1")));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("wire-txn", 0, T + 2, bytes("t2"), bytes("aborted-2")));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("wire-txn", 0, T + 3, bytes("t3"), bytes("committed-3")));
            producer.commitTransaction();
        }
        System.out.println("{\"ok\":true}");
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, String codec, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        if (transactionalId != null) props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The five records of every codec topic: headers in order with a repeated key and null values, null and empty keys and values, a tombstone, an earlier timestamp. */
    static List<ProducerRecord<byte[], byte[]>> records(String topic) {
        StringBuilder long_ = new StringBuilder();
        for (int i = 0; i < 20; i++) long_.append("compressible-");
        return List.of(
                new ProducerRecord<>(topic, 0, T, bytes("k0"), bytes("v0"), headers("a", "1", "b", "2", "a", "3")),
                new ProducerRecord<>(topic, 0, T + 1, null, bytes("v1"), headers("n", null)),
                new ProducerRecord<>(topic, 0, T + 2, new byte[0], new byte[0], headers()),
                new ProducerRecord<>(topic, 0, T + 3, bytes("k3"), null, headers("x", "", "y", null)),
                new ProducerRecord<>(topic, 0, T - 5, bytes("k4"), bytes(long_.toString()), headers()));
    }

    static List<Header> headers(String... keyValues) {
        List<Header> headers = new ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2) headers.add(new RecordHeader(keyValues[i], keyValues[i + 1] == null ? null : bytes(keyValues[i + 1])));
        return headers;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
