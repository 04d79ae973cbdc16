/**
 * Preloaded (`node -r`) into a process whose peak memory a test measures: prints
 * `max-rss-kib=<n>` (the resident set's high-water mark, from getrusage) on stderr as it exits.
 */
process.on('exit', () => {
  process.stderr.write(`\nmax-rss-kib=${process.resourceUsage().maxRSS}\n`);
});
