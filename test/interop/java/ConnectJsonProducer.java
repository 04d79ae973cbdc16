import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Writes orders as a Connect source would: each key and value is made by Kafka's own JsonConverter
 * with schemas.enable=true (the {schema, payload} envelope) from Connect data, and sent with
 * headers by Kafka's Java producer, to partition 0 with explicit timestamps. The orders have
 * optional fields set and unset, a Timestamp logical type, a nested struct (itself optional, with
 * an optional struct in it), a field with a default, text beyond ASCII; one record is a tombstone.
 *
 * Arguments: bootstrap servers, topic. Prints "WROTE n" when every record is acknowledged.
 */
public class ConnectJsonProducer {
  static final Schema ADDRESS = SchemaBuilder.struct().name("com.example.Address").optional()
      .field("city", Schema.OPTIONAL_STRING_SCHEMA)
      .field("zip", Schema.OPTIONAL_STRING_SCHEMA)
      .build();
  static final Schema CUSTOMER = SchemaBuilder.struct().name("com.example.Customer").optional()
      .field("name", Schema.STRING_SCHEMA)
      .field("email", Schema.OPTIONAL_STRING_SCHEMA)
      .field("address", ADDRESS)
      .build();
  static final Schema ORDER = SchemaBuilder.struct().name("com.example.Order").version(1).doc("An order")
      .field("id", Schema.INT64_SCHEMA)
      .field("note", Schema.OPTIONAL_STRING_SCHEMA)
      .field("created", Timestamp.builder().optional().build())
      .field("customer", CUSTOMER)
      .field("amount", Schema.OPTIONAL_FLOAT64_SCHEMA)
      .field("paid", SchemaBuilder.bool().optional().defaultValue(false).build())
      .build();

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    JsonConverter keys = new JsonConverter();
    keys.configure(java.util.Map.of("schemas.enable", "true"), true);
    JsonConverter values = new JsonConverter();
    values.configure(java.util.Map.of("schemas.enable", "true"), false);

    Struct first = new Struct(ORDER).put("id", 1L).put("note", "first order").put("created", new Date(1700000000123L))
        .put("customer", new Struct(CUSTOMER).put("name", "Zoë").put("email", "zoe@example.com")
            .put("address", new Struct(ADDRESS).put("city", "Tromsø").put("zip", "9008")))
        .put("amount", 12.5).put("paid", true);
    Struct second = new Struct(ORDER).put("id", 2L)
        .put("customer", new Struct(CUSTOMER).put("name", "Bo"));
    Struct third = new Struct(ORDER).put("id", 3L).put("note", "quote \" backslash \\ tab \t emoji 😀").put("created", new Date(0L))
        .put("amount", 1.0E21);
    Struct fourth = new Struct(ORDER).put("id", 4L).put("created", new Date(-1L))
        .put("customer", new Struct(CUSTOMER).put("name", "Ann").put("address", new Struct(ADDRESS).put("zip", "0150")))
        .put("amount", -0.1).put("paid", false);

    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    int written = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      Object[][] orders = {
        {"order-1", first, headers("trace", "t-1", "origin", "web")},
        {"order-2", second, headers("trace", null, "trace", "t-2b")},
        {"order-3", third, new RecordHeaders()},
        {"order-2", null, headers("deleted", "yes")},
        {"order-4", fourth, headers("origin", "app")},
      };
      for (Object[] order : orders) {
        byte[] key = keys.fromConnectData(topic, Schema.STRING_SCHEMA, order[0]);
        byte[] value = order[1] == null ? null : values.fromConnectData(topic, ORDER, order[1]);
        long timestamp = 1700000000000L + written * 1000L;
        producer.send(new ProducerRecord<>(topic, 0, timestamp, key, value, (RecordHeaders) order[2])).get();
        written++;
      }
    }
    System.out.println("WROTE " + written);
  }

  /** Headers from name, value pairs (a null value is a header without a value). */
  private static RecordHeaders headers(String... pairs) {
    RecordHeaders headers = new RecordHeaders();
    for (int i = 0; i < pairs.length; i += 2) {
      headers.add(pairs[i], pairs[i + 1] == null ? null : pairs[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return headers;
  }
}
