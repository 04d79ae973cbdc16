/**
 * PEM text as OpenSSL reads it. Kafka's Java clients accept PEM with its line breaks lost — an
 * mm2.properties value continued over lines with `\` arrives as one line, header, base64 and
 * footer separated by spaces — but Node's TLS needs each block's header, its base64 in lines and
 * its footer on lines of their own. Text that holds no PEM block is returned unchanged, for Node
 * to reject with its own message.
 */
const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

export function normalizePem(text: string): string {
  const blocks = [...text.matchAll(BLOCK)].map(([, label, body]) => {
    const base64 = body!.replace(/\s+/g, '');
    const lines = base64.match(/.{1,64}/g) ?? [];
    return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
  });
  return blocks.length === 0 ? text : blocks.join('');
}
