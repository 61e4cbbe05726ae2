// What kind of credential a finding is, what to call it, and what the user should do about it.
// Declared once here: `brain secrets`, doctor, the status-bar tooltip and the Backup view all show
// these words.

export type SecretKind =
  | 'aws'
  | 'gcp'
  | 'azure'
  | 'openai'
  | 'anthropic'
  | 'google-api-key'
  | 'huggingface'
  | 'github'
  | 'slack'
  | 'private-key'
  | 'env-assignment'
  | 'other';

/** What to do at the issuer, per kind. The common tail (the session is exposed) is EXPOSED. */
const ROTATE: Record<SecretKind, string> = {
  aws: 'Deactivate and delete this access key in AWS IAM (console: IAM → Users → Security credentials, or `aws iam delete-access-key`), issue a new one where it is needed, and check CloudTrail for use of the old key.',
  gcp: 'Delete this service-account key in Google Cloud (IAM & Admin → Service accounts → Keys, or `gcloud iam service-accounts keys delete`), then create a new key only where it is needed.',
  azure: 'Regenerate it in the Azure portal: a storage account key under Access keys (rotate key1/key2), a client secret under App registrations → Certificates & secrets, a SAS token by rotating the key that signed it.',
  openai: 'Revoke this key in the OpenAI platform (API keys page) and create a new one.',
  anthropic: 'Revoke this key in the Anthropic Console (API keys) and create a new one.',
  'google-api-key': 'Delete or regenerate this key in Google AI Studio or Google Cloud (APIs & Services → Credentials), and restrict the new key to the APIs it needs.',
  huggingface: 'Invalidate this token on Hugging Face (Settings → Access Tokens) and create a new one.',
  github: 'Revoke this token on GitHub (Settings → Developer settings → Personal access tokens, or the OAuth/GitHub App that issued it) and check the security log for its use.',
  slack: 'Revoke this token or webhook in the Slack app settings (OAuth & Permissions, or Incoming Webhooks) and issue a new one.',
  'private-key': 'Treat the key pair as compromised: remove its public half wherever it is trusted (authorized_keys, deploy keys, certificates, service accounts) and generate a new pair.',
  'env-assignment': 'Change this credential where it is issued (the service the variable names) and update the places that use it.',
  other: 'Revoke or rotate this credential where it was issued.',
};

const EXPOSED =
  'Then treat the session as exposed: the agent provider received it, and it is recorded on this floor and in the store copies listed. The floor is append-only and is not edited; rotating the credential is what makes the recorded copy harmless.';

export function rotateAdvice(kind: SecretKind): string {
  return `${ROTATE[kind]} ${EXPOSED}`;
}

/** Short form for tooltips and tree items. */
export function rotateShort(kind: SecretKind): string {
  return ROTATE[kind];
}

interface RuleInfo {
  kind: SecretKind;
  label: string;
}

/** secretlint rule ids (short names, without the @secretlint/secretlint-rule- prefix) → kind. */
const RULE_KIND: Record<string, SecretKind> = {
  aws: 'aws',
  gcp: 'gcp',
  openai: 'openai',
  anthropic: 'anthropic',
  huggingface: 'huggingface',
  github: 'github',
  slack: 'slack',
  privatekey: 'private-key',
};

/** Labels by secretlint message id, where the rule's own name is not telling enough. */
const MESSAGE_LABEL: Record<string, string> = {
  AWSAccessKeyID: 'AWS access key id',
  AWSSecretAccessKey: 'AWS secret access key',
  PrivateKeyJSON: 'GCP service-account key (JSON)',
  PrivateKeyP12: 'GCP service-account key (p12)',
  OPENAI_TOKEN: 'OpenAI API key',
  ANTHROPIC_API_KEY: 'Anthropic API key',
  HUGGINGFACE_USER_ACCESS_TOKEN: 'Hugging Face token',
  GITHUB_TOKEN: 'GitHub token',
  SLACK_TOKEN: 'Slack token',
  IncomingWebhook: 'Slack incoming webhook',
  PrivateKey: 'private key',
};

export function shortRuleId(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
}

export function ruleInfo(ruleId: string, messageId: string): RuleInfo {
  const short = shortRuleId(ruleId);
  const kind = RULE_KIND[short] ?? 'other';
  const label = MESSAGE_LABEL[messageId] ?? `${short} credential (${messageId})`;
  return { kind, label };
}
