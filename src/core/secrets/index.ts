// The secret guard: scans newly captured bytes for credentials and keeps masked findings with
// citations in a cache (BRAIN_HOME/secrets.json). The floor is only read.
export { scanNewChunks, scanPending, rescanAll, type ScanReport, type ScanOptions } from './scan';
export { listSecrets, secretsSummary, summaryLine, storeLocator, type SecretGroup, type SecretPlace, type SecretsSummary, type StoreCopies } from './report';
export { cacheFile, readCache, type SecretFinding } from './cache';
export { rotateAdvice, rotateShort, type SecretKind } from './kinds';
