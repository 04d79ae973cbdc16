import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;

/**
 * A broker-side OAUTHBEARER validator for the tests that stands in for AWS MSK's IAM check: the
 * token must be the base64url of a SigV4-presigned
 * {@code https://kafka.<region>.amazonaws.com/?Action=kafka-cluster:Connect&...} URL, signed with
 * the one access key this broker knows (JAAS options {@code accessKeyId}, {@code secretAccessKey},
 * {@code region}), and not expired. The signature is computed again here from the URL's own
 * parameters (AWS Signature Version 4, query-string form, service {@code kafka-cluster}) and
 * compared; anything else is refused with {@code invalid_token}. The principal is the access key id.
 * Each decision is printed on the broker's stdout, without the token.
 */
public class MskIamTokenValidator implements AuthenticateCallbackHandler {
  private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final String SERVICE = "kafka-cluster";

  private String accessKeyId;
  private String secretAccessKey;
  private String region;

  @Override
  public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
    Map<String, ?> options = entries.get(0).getOptions();
    accessKeyId = (String) options.get("accessKeyId");
    secretAccessKey = (String) options.get("secretAccessKey");
    region = (String) options.get("region");
  }

  @Override
  public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    for (Callback callback : callbacks) {
      if (callback instanceof OAuthBearerValidatorCallback validation) {
        validate(validation);
      } else if (!(callback instanceof OAuthBearerExtensionsValidatorCallback)) {
        throw new UnsupportedCallbackException(callback);
      }
    }
  }

  private void validate(OAuthBearerValidatorCallback callback) {
    String token = callback.tokenValue();
    try {
      Instant[] validity = check(token);
      callback.token(new Token(token, accessKeyId, validity[0].toEpochMilli(), validity[1].toEpochMilli()));
      System.out.println("MskIamTokenValidator: accepted a token of " + accessKeyId);
    } catch (Exception refused) {
      System.out.println("MskIamTokenValidator: refused a token: " + refused.getMessage());
      callback.error("invalid_token", null, null);
    }
  }

  /** The token's signing time and expiry, once everything checks out. */
  private Instant[] check(String token) throws Exception {
    URI url = URI.create(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
    String host = "kafka." + region + ".amazonaws.com";
    require("https".equals(url.getScheme()) && host.equals(url.getHost()) && "/".equals(url.getPath()), "not a presigned URL of " + host);
    Map<String, String> query = new TreeMap<>();
    for (String pair : url.getRawQuery().split("&")) {
      int equals = pair.indexOf('=');
      query.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
    }
    require("kafka-cluster:Connect".equals(query.get("Action")), "Action is not kafka-cluster:Connect");
    require("AWS4-HMAC-SHA256".equals(query.get("X-Amz-Algorithm")), "not AWS4-HMAC-SHA256");
    require("host".equals(query.get("X-Amz-SignedHeaders")), "signed headers are not host");
    String amzDate = query.get("X-Amz-Date");
    Instant signedAt = Instant.from(AMZ_DATE.parse(amzDate));
    Instant expiry = signedAt.plusSeconds(Long.parseLong(query.get("X-Amz-Expires")));
    String scope = amzDate.substring(0, 8) + "/" + region + "/" + SERVICE + "/aws4_request";
    require((accessKeyId + "/" + scope).equals(query.get("X-Amz-Credential")), "another access key or scope");
    Instant now = Instant.now();
    require(now.isBefore(expiry), "expired at " + expiry);
    require(signedAt.isBefore(now.plusSeconds(300)), "signed in the future");

    StringBuilder canonicalQuery = new StringBuilder();
    for (Map.Entry<String, String> entry : query.entrySet()) {
      // The signer adds User-Agent after signing; the signature covers every other parameter.
      if (entry.getKey().equals("X-Amz-Signature") || entry.getKey().equals("User-Agent")) continue;
      if (canonicalQuery.length() > 0) canonicalQuery.append('&');
      canonicalQuery.append(uriEncode(entry.getKey())).append('=').append(uriEncode(entry.getValue()));
    }
    String canonicalRequest = "GET\n/\n" + canonicalQuery + "\nhost:" + host + "\n\nhost\n" + hex(sha256(""));
    String stringToSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex(sha256(canonicalRequest));
    byte[] key = hmac(("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8), amzDate.substring(0, 8));
    key = hmac(key, region);
    key = hmac(key, SERVICE);
    key = hmac(key, "aws4_request");
    byte[] expected = hex(hmac(key, stringToSign)).getBytes(StandardCharsets.UTF_8);
    byte[] given = String.valueOf(query.get("X-Amz-Signature")).getBytes(StandardCharsets.UTF_8);
    require(MessageDigest.isEqual(expected, given), "the signature does not match");
    return new Instant[] {signedAt, expiry};
  }

  private static void require(boolean condition, String reason) {
    if (!condition) throw new IllegalArgumentException(reason);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** SigV4's URI encoding: everything but A-Z a-z 0-9 - . _ ~ as %XX, upper-case hex. */
  private static String uriEncode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static byte[] sha256(String text) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] hmac(byte[] key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public void close() {}

  private record Token(String value, String principalName, long start, long lifetimeMs) implements OAuthBearerToken {
    @Override
    public Set<String> scope() {
      return Set.of();
    }

    @Override
    public Long startTimeMs() {
      return start;
    }
  }
}
