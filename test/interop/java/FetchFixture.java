import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka side of the Fetch-by-topic-id fixtures of src/kafka/wire/fixtures/ (Fetch v13–v16,
 * KIP-516 topic ids in flexible versions), run by test/interop/capture-fetch-fixtures.ts. Modes:
 *
 *   <bootstrap> setup        creates `wire-fetch-a` (2 partitions) and `wire-fetch-b` (1) and writes,
 *                            with Kafka's Java producers:
 *                              a-0: five records in one lz4 batch (offsets 0-4);
 *                              a-1: a transaction of two records aborted (0-1, marker 2), then one
 *                                   of two records committed (3-4, marker 5);
 *                              b-0: two uncompressed batches of two records (0-1, 2-3), the first
 *                                   deleted (log start 2);
 *                            then prints each topic's id as `<topic>=<id>`;
 *   <bootstrap> requests     prints, one per line as `name=hex`, the bodies that Kafka's Java
 *                            client's FetchRequest.Builder.forConsumer serializes, at v13 and v16
 *                            (the full request also at v14 and v15, either side of replica_id's end):
 *                              full-vN         a new session (0, epoch 0), read_committed, rack
 *                                              `rack-a`: a-0 from 0, a-1 from 0, b-0 from 2;
 *                              sessionless-vN  no session (0, epoch -1), read_uncommitted, no rack:
 *                                              a-1 from 0, b-0 from 0 (below its log start);
 *                              unknown-v16     no session, read_committed: the topic id GONE,
 *                                              which no topic has, partition 0, then a-0 from 0;
 *   <bootstrap> incremental <session13> <session16>
 *                            prints incremental-vN: the session's epoch 1, a-1 from 3 (the only
 *                            partition that changed), b-0 forgotten, rack `rack-a`.
 *
 *   java -cp <kafka jars>:<classes> FetchFixture <bootstrap> <mode> [args]
 */
public final class FetchFixture {
    static final String A = "wire-fetch-a";
    static final String B = "wire-fetch-b";
    /** A topic id no topic has: a fixed one, so the spec knows it. */
    static final Uuid GONE = new Uuid(0x0123456789abcdefL, 0x0fedcba987654321L);
    /** The first version by topic id, the last two with replica_id in the body and the first two without (v15 dropped it), v16. */
    static final short[] FULL_VERSIONS = {13, 14, 15, 16};
    static final short[] VERSIONS = {13, 16};

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        switch (args[1]) {
            case "setup" -> setup(bootstrap);
            case "requests" -> requests(bootstrap);
            case "incremental" -> incremental(bootstrap, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown mode " + args[1]);
        }
    }

    static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    static KafkaProducer<String, String> producer(String bootstrap, String codec, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        // A long linger and a large batch: what is sent before a flush goes in one batch.
        props.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        if (transactionalId != null) props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    static void setup(String bootstrap) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(A, 2, (short) 1), new NewTopic(B, 1, (short) 1))).all().get();
            try (KafkaProducer<String, String> producer = producer(bootstrap, "lz4", null)) {
                for (int i = 0; i < 5; i++) producer.send(new ProducerRecord<>(A, 0, "a0-k" + i, "a0-v" + i + " " + "lz4-compressible ".repeat(4)));
                producer.flush();
            }
            try (KafkaProducer<String, String> producer = producer(bootstrap, "none", "wire-fetch-txn")) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(A, 1, "a1-k0", "aborted-0"));
                producer.send(new ProducerRecord<>(A, 1, "a1-k1", "aborted-1"));
                producer.flush();
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(A, 1, "a1-k3", "committed-3"));
                producer.send(new ProducerRecord<>(A, 1, "a1-k4", "committed-4"));
                producer.commitTransaction();
            }
            try (KafkaProducer<String, String> producer = producer(bootstrap, "none", null)) {
                for (int batch = 0; batch < 2; batch++) {
                    for (int i = 0; i < 2; i++) producer.send(new ProducerRecord<>(B, 0, "b0-k" + (batch * 2 + i), "b0-v" + (batch * 2 + i)));
                    producer.flush();
                }
            }
            admin.deleteRecords(Map.of(new TopicPartition(B, 0), RecordsToDelete.beforeOffset(2))).all().get();
            for (TopicDescription topic : admin.describeTopics(List.of(A, B)).allTopicNames().get().values())
                System.out.println(topic.name() + "=" + topic.topicId());
        }
    }

    static Map<String, Uuid> ids(String bootstrap) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            Map<String, Uuid> ids = new LinkedHashMap<>();
            for (TopicDescription topic : admin.describeTopics(List.of(A, B)).allTopicNames().get().values()) ids.put(topic.name(), topic.topicId());
            return ids;
        }
    }

    /** A consumer's partition: no leader epoch to check, no log start offset (a follower's). */
    static FetchRequest.PartitionData at(Uuid id, long fetchOffset, int maxBytes) {
        return new FetchRequest.PartitionData(id, fetchOffset, -1L, maxBytes, Optional.empty());
    }

    static void requests(String bootstrap) throws Exception {
        Map<String, Uuid> ids = ids(bootstrap);
        Uuid a = ids.get(A);
        Uuid b = ids.get(B);
        for (short version : FULL_VERSIONS) {
            Map<TopicPartition, FetchRequest.PartitionData> full = new LinkedHashMap<>();
            full.put(new TopicPartition(A, 0), at(a, 0, 1_048_576));
            full.put(new TopicPartition(A, 1), at(a, 0, 524_288));
            full.put(new TopicPartition(B, 0), at(b, 2, 262_144));
            print("full-v" + version, FetchRequest.Builder.forConsumer(version, 500, 1, full)
                .isolationLevel(IsolationLevel.READ_COMMITTED)
                .setMaxBytes(52_428_800)
                .metadata(FetchMetadata.INITIAL)
                .rackId("rack-a")
                .build(version));
        }
        for (short version : VERSIONS) {
            Map<TopicPartition, FetchRequest.PartitionData> sessionless = new LinkedHashMap<>();
            sessionless.put(new TopicPartition(A, 1), at(a, 0, 1_048_576));
            sessionless.put(new TopicPartition(B, 0), at(b, 0, 1_048_576));
            print("sessionless-v" + version, FetchRequest.Builder.forConsumer(version, 100, 1, sessionless)
                .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                .setMaxBytes(10_485_760)
                .metadata(FetchMetadata.LEGACY)
                .build(version));
        }
        Map<TopicPartition, FetchRequest.PartitionData> unknown = new LinkedHashMap<>();
        unknown.put(new TopicPartition("wire-fetch-gone", 0), at(GONE, 0, 1_048_576));
        unknown.put(new TopicPartition(A, 0), at(a, 0, 1_048_576));
        print("unknown-v16", FetchRequest.Builder.forConsumer((short) 16, 100, 1, unknown)
            .isolationLevel(IsolationLevel.READ_COMMITTED)
            .setMaxBytes(10_485_760)
            .metadata(FetchMetadata.LEGACY)
            .build((short) 16));
    }

    static void incremental(String bootstrap, int session13, int session16) throws Exception {
        Map<String, Uuid> ids = ids(bootstrap);
        for (short version : VERSIONS) {
            Map<TopicPartition, FetchRequest.PartitionData> changed = new LinkedHashMap<>();
            changed.put(new TopicPartition(A, 1), at(ids.get(A), 3, 524_288));
            print("incremental-v" + version, FetchRequest.Builder.forConsumer(version, 500, 1, changed)
                .isolationLevel(IsolationLevel.READ_COMMITTED)
                .setMaxBytes(52_428_800)
                .metadata(new FetchMetadata(version == 13 ? session13 : session16, 1))
                .removed(List.of(new TopicIdPartition(ids.get(B), new TopicPartition(B, 0))))
                .replaced(List.of())
                .rackId("rack-a")
                .build(version));
        }
    }

    static void print(String name, FetchRequest request) {
        ByteBuffer body = request.serialize().buffer();
        StringBuilder hex = new StringBuilder(name).append('=');
        while (body.hasRemaining()) hex.append(String.format("%02x", body.get()));
        System.out.println(hex);
    }
}
