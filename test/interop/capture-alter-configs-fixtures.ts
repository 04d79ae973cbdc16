/**
 * Captures the IncrementalAlterConfigs fixtures of src/kafka/wire/fixtures/ from Kafka's Java
 * client and a real broker:
 *
 *   npm run build && node dist/test/interop/capture-alter-configs-fixtures.js [--kafka-version V]
 *
 * Starts one local cluster (src/local); `java/AlterConfigsFixture.java` creates the topics and
 * encodes an IncrementalAlterConfigs v0 request with the request class Kafka's AdminClient uses,
 * stored as `java-incremental-alter-configs-v0-request.hex`; that request is then sent to the
 * broker and its response body (after the correlation id) stored as
 * `broker-incremental-alter-configs-v0.hex`: one topic changed, one refused (a value that is not a
 * number), one that does not exist. The wire spec checks our encoder against the first and our
 * decoder against the second. Run it again after changing the Java program.
 */
import { INCREMENTAL_ALTER_CONFIGS_API_KEY, INCREMENTAL_ALTER_CONFIGS_V0 } from '../../src/kafka/wire/incremental-alter-configs';
import { captureFixtures, roundTrip, storeHexFixture } from './fixture-capture';

if (require.main === module) {
  captureFixtures('AlterConfigsFixture.java', async ({ bootstrap, runJava }) => {
    const hex = (await runJava('AlterConfigsFixture')).trim().split('\n').pop()!.trim();
    const request = Buffer.from(hex, 'hex');
    const response = await roundTrip(bootstrap, INCREMENTAL_ALTER_CONFIGS_API_KEY, INCREMENTAL_ALTER_CONFIGS_V0, request);
    storeHexFixture('java-incremental-alter-configs-v0-request.hex', request);
    storeHexFixture('broker-incremental-alter-configs-v0.hex', response);
  });
}
