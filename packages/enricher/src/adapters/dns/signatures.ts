/**
 * What a domain's DNS says about the services it uses: data, not code. Each entry names one
 * technology and the evidence for it. Host names match a record's host or any name below it
 * (`google.com` matches `aspmx.l.google.com`), case-insensitively; TXT prefixes match the start of
 * a TXT record (the verification tokens services ask their customers to publish).
 *
 * Only evidence a service documents for its customers' own domains belongs here: a `mx` host is a
 * mailbox provider's inbound server, an `spf` host is a service that sends mail as the domain, a
 * `txt` prefix is a domain-ownership token. Add a line to add a technology; the adapter's tests
 * check that every entry is well formed.
 */
export interface DnsSignature {
  /** The technology as results name it. */
  name: string;
  category:
    | 'email_hosting'
    | 'email_security'
    | 'email_sending'
    | 'crm'
    | 'marketing'
    | 'support'
    | 'collaboration'
    | 'other';
  /** MX exchange hosts (suffixes). */
  mx?: readonly string[];
  /** SPF `include:` / `redirect=` hosts (suffixes), followed through nested includes. */
  spf?: readonly string[];
  /** TXT record prefixes, case-insensitive. */
  txt?: readonly string[];
}

export const DNS_SIGNATURES: readonly DnsSignature[] = [
  // Mailbox providers
  {
    name: 'Google Workspace',
    category: 'email_hosting',
    mx: ['google.com', 'googlemail.com'],
    spf: ['_spf.google.com'],
    txt: ['google-gws-recovery-domain-verification='],
  },
  {
    name: 'Microsoft 365',
    category: 'email_hosting',
    mx: ['mail.protection.outlook.com'],
    spf: ['spf.protection.outlook.com'],
    txt: ['MS=ms'],
  },
  {
    name: 'Zoho Mail',
    category: 'email_hosting',
    mx: ['zoho.com', 'zoho.eu', 'zoho.in'],
    spf: ['zoho.com', 'zoho.eu'],
    txt: ['zoho-verification='],
  },
  {
    name: 'Fastmail',
    category: 'email_hosting',
    mx: ['messagingengine.com'],
    spf: ['spf.messagingengine.com'],
  },
  {
    name: 'Proton Mail',
    category: 'email_hosting',
    mx: ['protonmail.ch'],
    spf: ['_spf.protonmail.ch'],
    txt: ['protonmail-verification='],
  },
  {
    name: 'Cloudflare Email Routing',
    category: 'email_hosting',
    mx: ['mx.cloudflare.net'],
    spf: ['_spf.mx.cloudflare.net'],
  },
  // Mail security gateways
  {
    name: 'Proofpoint',
    category: 'email_security',
    mx: ['pphosted.com', 'ppe-hosted.com'],
    spf: ['pphosted.com'],
  },
  { name: 'Mimecast', category: 'email_security', mx: ['mimecast.com'], spf: ['_netblocks.mimecast.com'] },
  {
    name: 'Barracuda Email Security',
    category: 'email_security',
    mx: ['barracudanetworks.com'],
    spf: ['spf.ess.barracudanetworks.com'],
  },
  // Senders (transactional and bulk)
  { name: 'Amazon SES', category: 'email_sending', spf: ['amazonses.com'], txt: ['amazonses:'] },
  { name: 'SendGrid', category: 'email_sending', spf: ['sendgrid.net'] },
  { name: 'Mailgun', category: 'email_sending', mx: ['mailgun.org'], spf: ['mailgun.org'] },
  { name: 'Postmark', category: 'email_sending', spf: ['spf.mtasv.net'] },
  { name: 'SparkPost', category: 'email_sending', spf: ['sparkpostmail.com'] },
  { name: 'Mailjet', category: 'email_sending', spf: ['spf.mailjet.com'] },
  { name: 'Mailchimp', category: 'marketing', spf: ['servers.mcsv.net', 'spf.mandrillapp.com'] },
  {
    name: 'Brevo',
    category: 'marketing',
    spf: ['spf.sendinblue.com', 'spf.brevo.com'],
    txt: ['brevo-code:', 'Sendinblue-code:'],
  },
  { name: 'Constant Contact', category: 'marketing', spf: ['spf.constantcontact.com'] },
  { name: 'Campaign Monitor', category: 'marketing', spf: ['_spf.createsend.com'] },
  { name: 'Marketo', category: 'marketing', spf: ['mktomail.com'] },
  // CRM and marketing automation
  { name: 'HubSpot', category: 'crm', spf: ['hubspotemail.net'], txt: ['hubspot-developer-verification='] },
  { name: 'Salesforce', category: 'crm', spf: ['_spf.salesforce.com'] },
  { name: 'Pardot', category: 'marketing', spf: ['aspmx.pardot.com'] },
  // Support desks
  { name: 'Zendesk', category: 'support', spf: ['mail.zendesk.com'], txt: ['zendeskverification='] },
  { name: 'Freshdesk', category: 'support', spf: ['email.freshdesk.com'] },
  { name: 'Help Scout', category: 'support', spf: ['helpscoutemail.com'] },
  // Collaboration and other SaaS that verify domain ownership by TXT
  {
    name: 'Atlassian',
    category: 'collaboration',
    spf: ['_spf.atlassian.net'],
    txt: ['atlassian-domain-verification='],
  },
  { name: 'Slack', category: 'collaboration', txt: ['slack-domain-verification='] },
  { name: 'Zoom', category: 'collaboration', txt: ['ZOOM_verify_'] },
  { name: 'Webex', category: 'collaboration', txt: ['webexdomainverification.'] },
  { name: 'Dropbox', category: 'collaboration', txt: ['dropbox-domain-verification='] },
  { name: 'Miro', category: 'collaboration', txt: ['miro-verification='] },
  { name: 'DocuSign', category: 'other', txt: ['docusign='] },
  { name: 'Adobe', category: 'other', txt: ['adobe-idp-site-verification=', 'adobe-sign-verification='] },
  { name: 'Apple Business', category: 'other', txt: ['apple-domain-verification='] },
  { name: 'Meta Business', category: 'marketing', txt: ['facebook-domain-verification='] },
  { name: 'Google Search Console', category: 'marketing', txt: ['google-site-verification='] },
  { name: 'Stripe', category: 'other', txt: ['stripe-verification='] },
  { name: 'Canva', category: 'other', txt: ['canva-site-verification='] },
  { name: 'OpenAI', category: 'other', txt: ['openai-domain-verification='] },
];
