import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * Runs Kafka Connect's own converters and SMTs on records, as a Connect pipeline does: the key and
 * value bytes are read by the key and value converters (toConnectData), the record goes through
 * the transformations in order, and is written back by the same converters (fromConnectData); the
 * record's headers are written by the header converter (fromConnectHeader). A transformation
 * with a predicate runs only where the predicate's test differs from its `negate`, as Connect
 * runs `transforms.<alias>.predicate` and `.negate`.
 *
 * Reads one JSON case per line on stdin:
 *   {"topic", "partition", "offset", "timestamp", "key", "value" (UTF-8 text or null),
 *    "headers" (optional: [[name, base64 or null]], added as bytes, as MM2's source task adds them),
 *    "keyConverter", "valueConverter" ({"class": ..., other keys are its config}),
 *    "headerConverter" (the same shape), "transforms": [{"class": ..., other keys its config,
 *    optionally "predicate": {"class": ..., other keys its config} and "negate": true}]}
 * and writes one JSON line per case: {"key", "value" (text or null), "headers": [[name, base64 or null]]}
 * or {"error": the exception's class and message}.
 */
public class ConnectTransformOracle {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  /** Keys of a case's converter, transformation or predicate that are not its config. */
  private static final Set<String> CASE_KEYS = Set.of("class", "predicate", "negate");

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      String answer;
      try {
        answer = MAPPER.writeValueAsString(run(MAPPER.readTree(line)));
      } catch (Throwable error) {
        ObjectNode failure = MAPPER.createObjectNode();
        failure.put("error", error.getClass().getSimpleName() + ": " + error.getMessage());
        answer = MAPPER.writeValueAsString(failure);
      }
      System.out.println(answer);
    }
  }

  private static Map<String, Object> config(JsonNode node) {
    Map<String, Object> props = new HashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!CASE_KEYS.contains(field.getKey())) props.put(field.getKey(), field.getValue().asText());
    }
    return props;
  }

  private static Object instance(JsonNode node) throws Exception {
    return Class.forName(node.get("class").asText()).getDeclaredConstructor().newInstance();
  }

  private static Converter converter(JsonNode node, boolean isKey) throws Exception {
    Converter converter = (Converter) instance(node);
    converter.configure(config(node), isKey);
    return converter;
  }

  private static byte[] bytes(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText().getBytes(StandardCharsets.UTF_8);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static ObjectNode run(JsonNode c) throws Exception {
    String topic = c.path("topic").asText("src.orders");
    Converter keyConverter = converter(c.get("keyConverter"), true);
    Converter valueConverter = converter(c.get("valueConverter"), false);
    HeaderConverter headerConverter = (HeaderConverter) instance(c.get("headerConverter"));
    headerConverter.configure(config(c.get("headerConverter")));
    SchemaAndValue key = keyConverter.toConnectData(topic, bytes(c.get("key")));
    SchemaAndValue value = valueConverter.toConnectData(topic, bytes(c.get("value")));
    ConnectHeaders inputHeaders = new ConnectHeaders();
    for (JsonNode header : c.path("headers")) {
      inputHeaders.addBytes(header.get(0).asText(), header.get(1).isNull() ? null : Base64.getDecoder().decode(header.get(1).asText()));
    }
    SinkRecord record = new SinkRecord(topic, c.path("partition").asInt(1), key.schema(), key.value(), value.schema(), value.value(),
        c.path("offset").asLong(42), c.path("timestamp").asLong(1700000000123L), TimestampType.CREATE_TIME, inputHeaders);
    List<Transformation> transforms = new ArrayList<>();
    List<Predicate> predicates = new ArrayList<>();
    List<Boolean> negations = new ArrayList<>();
    for (JsonNode t : c.path("transforms")) {
      Transformation transform = (Transformation) instance(t);
      transform.configure(config(t));
      transforms.add(transform);
      Predicate predicate = null;
      if (t.has("predicate")) {
        predicate = (Predicate) instance(t.get("predicate"));
        predicate.configure(config(t.get("predicate")));
      }
      predicates.add(predicate);
      negations.add(t.path("negate").asBoolean(false));
    }
    for (int i = 0; i < transforms.size(); i++) {
      Predicate predicate = predicates.get(i);
      if (predicate != null && predicate.test(record) == negations.get(i)) continue;
      record = (SinkRecord) transforms.get(i).apply(record);
      if (record == null) break;
    }
    ObjectNode out = MAPPER.createObjectNode();
    if (record == null) {
      out.put("dropped", true);
      return out;
    }
    byte[] keyBytes = keyConverter.fromConnectData(record.topic(), record.keySchema(), record.key());
    byte[] valueBytes = valueConverter.fromConnectData(record.topic(), record.valueSchema(), record.value());
    out.put("topic", record.topic());
    out.put("key", keyBytes == null ? null : new String(keyBytes, StandardCharsets.UTF_8));
    out.put("value", valueBytes == null ? null : new String(valueBytes, StandardCharsets.UTF_8));
    ArrayNode headers = out.putArray("headers");
    for (Header header : record.headers()) {
      byte[] headerBytes = headerConverter.fromConnectHeader(record.topic(), header.key(), header.schema(), header.value());
      ArrayNode pair = headers.addArray();
      pair.add(header.key());
      if (headerBytes == null) pair.addNull();
      else pair.add(Base64.getEncoder().encodeToString(headerBytes));
    }
    return out;
  }
}
