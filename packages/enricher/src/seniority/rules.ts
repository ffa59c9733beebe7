import type { Seniority } from '@svc/core';

/** A level a rule can give; `unknown` is only ever the answer for a title that says nothing. */
export type Level = Exclude<Seniority, 'unknown'>;

/**
 * One rule of the classifier. Rules run in table order over the normalised title (`normalise.ts`:
 * lower case, no accents, words separated by single spaces, one space padding each end). A rule that
 * matches contributes its level and flags, then its match is blanked out, so later, more general
 * rules never see words an earlier, more specific rule has explained: "Vice President" is read by the
 * VP rule before the President rule runs; "Product Owner" is read by a guard before the Owner rule.
 * A rule with `level: null` is a guard: it only hides a false friend.
 */
export interface TitleRule {
  /** What the rule recognises (the README's rule table lists the same). */
  readonly name: string;
  readonly pattern: RegExp;
  readonly level: Level | null;
  readonly founder?: true;
  readonly owner?: true;
  readonly board?: true;
  /** Blank only the first capture group, not the whole match (for look-around guards). */
  readonly keepContext?: true;
}

/** Builds the padded-word pattern: the alternatives match whole words only. */
const words = (alternatives: string): RegExp => new RegExp(` (?:${alternatives})(?= )`, 'g');

/** Words naming a programme or team around a role word, not the role itself ("Intern Coordinator"). */
const PROGRAMME_NOUNS =
  'recruit\\w*|coordinator|program|programs|programme|success|recruitment|affairs|services|advisor|adviser|' +
  'counselor|counsellor|support|experience|engagement|enrollment|admissions|ambassador|relations|mentor|' +
  'manager|lead|director|specialist|officer|administrator|marketing|onboarding|hiring';

/** Words after "partner" that make it a partnership job ("Partner Manager"), not a firm's partner. */
const PARTNER_JOBS =
  'manager|marketing|success|sales|account|development|relations|program|programs|programme|channel|' +
  'ecosystem|alliances|engineer|engineering|enablement|operations|specialist|lead|executive|solutions|' +
  'integration|integrations|support|director|partnerships|onboarding|management|network|experience|' +
  'technical|coordinator|representative|associate|recruiter|acquisition';

/** Technical nouns after "staff": a Staff Engineer is a senior IC, a Staff Accountant or Staff Nurse is not. */
const STAFF_TECH =
  'software|engineer|engineering|data|machine|ml|designer|product designer|scientist|research|researcher|' +
  'security|site reliability|sre|backend|frontend|full stack|fullstack|developer|architect|technical|tpm|' +
  'ux|infrastructure|platform|mobile|ios|android';

/** What follows French "administrateur" when it is a systems job, not a board seat. */
const ADMIN_JOBS =
  'systemes?|systeme|reseaux?|de|des|du|d|bases?|sap|it|informatique|linux|windows|ventes|fonctionnel|' +
  'applicatif|technique|logiciel|plateforme|salesforce|si|sirh|crm|erp|web|securite';

export const TITLE_RULES: readonly TitleRule[] = [
  // Guards: false friends hidden before the rules that would misread them.
  {
    name: 'lead generation is not a lead role',
    pattern: words('lead generation|lead gen|leads'),
    level: null,
  },
  {
    name: 'Halbleiter, Umleiter, Ableiter: German words ending in -leiter that lead nothing',
    pattern: words(
      '[a-z]*halbleiter[a-z]*|[a-z]*umleiter(?:in|innen)?|[a-z]*ableiter(?:in)?|[a-z]*leiterplatte[a-z]*',
    ),
    level: null,
  },
  {
    name: '"head" as a plain word: heads-up, head office, headquarters',
    pattern: words('heads? up|head office|head offices|head quarters|head count|headcount|head hunter'),
    level: null,
  },
  {
    name: 'stage (theatre) is not stage (French internship)',
    pattern: words(
      'stage (?:technician|technicians|manager|management|director|designer|hand|crew|lighting|sound)|backstage',
    ),
    level: null,
  },
  {
    name: 'Spanish encargado de + a task (not a place or a team) is the worker doing it',
    pattern:
      / (encargad[oa]s?) de (?:la |el |los |las |)(?!(?:tienda|almacen|obra|obras|seccion|turno|equipo|planta|local|sucursal|oficina|cocina|personal|departamento|area|grupo|sala|taller|restaurante|bar|hotel|establecimiento|comercio|zona|linea|produccion|mantenimiento)(?: |$))/g,
    level: 'entry',
    keepContext: true,
  },
  {
    name: 'product/process/... owner is a role, not an owner',
    pattern: words(
      '(?:product|process|service|risk|control|data|system|systems|content|feature|platform|budget|application|asset|area|domain|technical|solution|business process) owners?|owner s (?:representative|rep)',
    ),
    level: null,
  },
  {
    name: "founder's associate, office of the CEO: staff roles, not founders or CEOs",
    pattern: words(
      'founders?(?: s)? (?:associate|office|relations|success|community|programs?|programme|experience|platform|liaison)|office of the (?:founders?|ceo|president|chairman)',
    ),
    level: null,
  },
  {
    name: 'advisory board is not a governing board',
    pattern: words('advisory board(?: member)?|board advis[eo]rs?|board certified'),
    level: null,
  },
  {
    name: 'intern/student/trainee programme jobs ("Intern Coordinator")',
    pattern: new RegExp(
      ` (intern|interns|internship|internships|student|students|trainee|trainees|apprentice|apprentices|apprenticeship|graduate|graduates)(?= (?:${PROGRAMME_NOUNS}) )`,
      'g',
    ),
    level: null,
    keepContext: true,
  },
  {
    name: 'business/channel partner, partner manager: partnership jobs',
    pattern: words(
      '(?:business|channel|alliance|alliances|strategic|technology|implementation|people|talent|hr|finance|learning|training|solutions?) partners?',
    ),
    level: null,
  },
  {
    name: 'partner + job noun',
    pattern: new RegExp(` (partners?)(?= (?:${PARTNER_JOBS}) )`, 'g'),
    level: null,
    keepContext: true,
  },
  {
    name: 'expert-comptable (French chartered accountant)',
    pattern: words('expert comptable|experte comptable'),
    level: null,
  },
  {
    name: 'associate product manager (an entry role)',
    pattern: words('associate product manager|apm'),
    level: null,
  },
  {
    name: 'head chef, head nurse, ...: a team lead',
    pattern: words(
      'head (?:chef|cook|nurse|coach|waiter|waitress|bartender|gardener|housekeeper|porter|cashier|baker|lifeguard|barista)',
    ),
    level: 'manager',
  },
  {
    name: 'líder técnico (a tech lead, not a team lead)',
    pattern: words('lider tecnic[oa]'),
    level: 'senior',
  },
  {
    name: 'school and university heads: head teacher, principal of a school, dean, rector (EN/DE/ES/PT/IT)',
    pattern: words(
      'head ?teachers?|headmaster|headmistress|(?:[a-z]+ )?school head|head of (?:school|department|faculty)|school principal|principal of [a-z ]*(?:school|college|academy)|department chair|chair of (?:the )?department|dean|deans|dekan|dekanin|decano|decana|rektor|rektorin|rector|rectora|reitor|reitora|rettore|preside|schulleiter(?:in)?',
    ),
    level: 'director',
  },
  {
    name: 'professor of / Professor für (academic rank); a Romance "professor de" is a teacher',
    pattern: words(
      '(?:full |associate |assistant |adjunct |visiting |honorary |emeritus )?professor(?:in)?(?! (?:de|do|da|dos|das|di|del|della|en|no|na) )|professeur des universites|catedratic[oa]|ordinari[oa]',
    ),
    level: 'senior',
  },
  {
    name: 'senior government: head of government, minister, mayor, legislators',
    pattern: words(
      'regierungschef(?:in)?|head of (?:state|government)|prime minister|minister|ministerin|ministro|ministra|mayor|burgermeister(?:in)?|oberburgermeister(?:in)?|buergermeister(?:in)?|prefeito|prefeita|sindaco|alcalde|alcaldesa|maire|governor|governador|governadora|senator|senador|senadora|legislators?|membri dell esecutivo|corpi legislativi|poder executivo|dirigenti superiori|dirigente superiore|hauts fonctionnaires',
    ),
    level: 'executive',
  },
  { name: 'associate partner', pattern: words('associate partners?'), level: 'director' },
  { name: 'chief of staff', pattern: words('chief of staff'), level: 'director' },
  {
    name: 'editor in chief',
    pattern: words(
      'editor in chief|chefredakteur|chefredakteurin|redacteur en chef|redactrice en chef|redactora? jefe|redactora? en jefe',
    ),
    level: 'director',
  },

  // Board seats (flag `board`, level executive).
  {
    name: 'non-executive / independent director',
    pattern: words(
      '(?:independent )?non executive directors?|non exec directors?|ned|independent directors?|outside directors?',
    ),
    level: 'executive',
    board: true,
  },
  {
    name: 'board member, member of the board, chairman, trustee',
    pattern: words(
      '(?:members? of the )?(?:(?:supervisory|executive|management) )?board(?: of (?:directors|trustees|management))?(?: (?:members?|directors?|trustees?|chair|chairman|chairwoman|chairperson|president))?|(?:vice |deputy )?(?:chairman|chairwoman|chairperson)|chair of the board|trustees?',
    ),
    level: 'executive',
    board: true,
  },
  {
    name: 'Vorstand, Aufsichtsrat, Verwaltungsrat (DE/CH boards)',
    pattern: words(
      'aufsichtsrat\\w*|vorstand|vorstandes|vorstands(?:vorsitzende[rn]?|mitglied|sprecher|sprecherin|chef|chefin|vorsitz)|verwaltungsrat\\w*|mitglied des (?:vorstands|vorstandes)',
    ),
    level: 'executive',
    board: true,
  },
  {
    name: "administrateur, conseil d'administration, directoire (FR boards)",
    pattern: new RegExp(
      ` (?:administrat(?:eur|rice)(?! (?:${ADMIN_JOBS}) )(?: independante?)?|membre du conseil d administration|conseil d administration|conseil de surveillance|directoire)(?= )`,
      'g',
    ),
    level: 'executive',
    board: true,
  },
  {
    name: 'consejero, consejo de administración (ES boards)',
    pattern: words(
      'conselheir[oa]s?|membro do conselho(?: de administracao)?|conselho de administracao|consiglier[ea](?: di amministrazione| indipendente)?|consiglio di amministrazione|membro del consiglio(?: di amministrazione)?|consejer[oa](?: delegad[oa]| independiente)?|(?:miembro|presidente|presidenta) del consejo(?: de administracion)?|consejo de administracion',
    ),
    level: 'executive',
    board: true,
  },

  // Vice presidents, read before "president".
  {
    name: 'vice president, VP, SVP, EVP, AVP (EN/DE/FR/ES)',
    pattern: words(
      '(?:senior |executive |group |regional |area |assistant |associate |corporate |deputy )?(?:vice president|vicepresident|vice presidente?|vicepresident[ea]|vice presidenta|vize ?praesident(?:in)?|vize ?prasident(?:in)?|vp|svp|evp|avp|rvp|gvp)s?',
    ),
    level: 'vp',
  },

  // Executives.
  {
    name: 'chief ... officer, chief executive',
    pattern: words('chief executive(?: officer)?|chief(?: [a-z]+){1,4} officer'),
    level: 'executive',
  },
  {
    name: 'C-level acronyms (CEO, CFO, ...), PDG, DG',
    pattern: words(
      'ceo|cfo|coo|cto|cmo|cio|ciso|cpo|cro|cco|chro|cdo|cso|cao|cbo|cxo|clo|cgo|pdg|dg|c level|c suite|csuite',
    ),
    level: 'executive',
  },
  {
    name: 'president (EN/DE/FR/ES)',
    pattern: words('president|presidente|presidenta|prasident|prasidentin|praesident|praesidentin'),
    level: 'executive',
  },
  {
    name: 'managing director, general manager, executive director, DG, Geschäftsführer, gérant',
    pattern: words(
      'managing (?:directors?|partners?|members?)|general counsel|executive (?:directors?|chairman|chairwoman|chair)|general manager|directeurs? generaux|directeur general|directrice generale|directrices generales|diretor(?:a|es)? ger(?:al|ais)|diretor presidente|direttore generale|direttrice generale|amministratore delegato|direct(?:or|ora) general|direct(?:or|ora) ejecutiv[oa]|gerente general|gesch(?:a|ae)fts(?:fu|fue)hr(?:er|erin|ende[rn]?|ung)|gesch(?:a|ae)ftsleitung|gerante?|administrador[a]? unic[oa]|executive committee|exco|comite executif|comite de direction|comite de direccion',
    ),
    level: 'executive',
  },
  {
    name: 'founder, co-founder (EN/DE/FR/ES)',
    pattern: words(
      'co ?founders?|cofounders?|founders?|founding (?:partner|ceo|director)|foundress|(?:mit)?(?:be)?gru?e?nder(?:in)?|(?:co ?)?fondat(?:eur|rice)|(?:co ?)?fundador[a]?|soci[oa] fundador[a]?',
    ),
    level: 'executive',
    founder: true,
  },
  {
    name: 'owner, proprietor (EN/DE/FR/ES)',
    pattern: words(
      'co ?owners?|owners?|proprietor|proprietress|(?:mit)?inhaber(?:in)?|eigentu?e?mer(?:in)?|gesellschafter(?:in)?|proprietaire|propietari[oa]|duen[oa]',
    ),
    level: 'executive',
    owner: true,
  },
  {
    name: 'partner (law, consulting, VC), associé, socio',
    pattern: words('(?:senior |equity |founding |general |name |salary )?partners?|associee?s?|soci[oa]s?'),
    level: 'executive',
  },

  // Directors.
  {
    name: 'director, head of, chief + other noun, Direktor, directeur, Prokurist, DSI/DRH/DAF',
    pattern: words(
      'directors?|dir|dirs|directora|directoras|directores|directeurs?|directrices?|[a-z]*direktor(?:in|en|innen)?|diretor|diretora|diretores|diretoras|direttore|direttrice|direttori|dirigente|dirigenti|capo|capi|cadres de direction|head|heads|leitung|prokurist(?:in)?|dsi|drh|daf|chief(?: [a-z]+)?',
    ),
    level: 'director',
  },
  {
    name: 'German -leiter of a team, project, branch, shop or site, Leiter eines Geschäftes (Teamleiter)',
    pattern: words(
      '[a-z]*(?:team|gruppen|betriebs|projekt|teilprojekt|filial|schicht|bau|lager|buro|buero|objekt|markt|kuchen|stations|produktions|fertigungs|werkstatt|montage|prufungs|pruefungs|tankstellen|warenhaus|zentrums?|pensions|laden|kiosk|heim|hotel|restaurant|einrichtungs)(?:leiter|leiterin|leitung)|(?:leiter|leiterin) (?:eines|einer) [a-z ]*',
    ),
    level: 'manager',
  },
  {
    name: 'German Leiter / -leiter of a function (Vertriebsleiter)',
    pattern: words('[a-z]*(?:leiter|leiterin)|[a-z]+leitung'),
    level: 'director',
  },

  // Managers.
  {
    name: 'manager, supervisor, team lead, responsable, chef de, jefe, gerente, encargado',
    pattern: words(
      '[a-z]*managers?|[a-z]*managerin|mgr|mgrs|(?:industrie|werk|schicht|buhnen|buehnen|hallen|lager|kuchen|kuechen|bau)meister(?:in)?|polier(?:in)?|aufsichtskraft|aufsichtskrafte|chefe|chefes|mestre|contramestre|encarregad[oa]s?|responsabile|responsabili|capoturno|caposquadra|capocantiere|capo reparto|(?:schicht|gruppen|team)fu?e?hrer(?:in)?|managing editor|supervisor|supervisora|superintendent|foreman|forewoman|gerente|encargad[oa]|responsable|jefe|jefa|chef(?:fe)? (?:de|d|des|du)|(?:team|group|squad|shift|project|program|programme|store|site) lead(?:er)?|teamlead|leader|lider|capataz|vorarbeiter(?:in)?',
    ),
    level: 'manager',
  },

  // Interns and trainees.
  {
    name: 'intern, trainee, apprentice, student (EN/DE/FR/ES)',
    pattern: words(
      'interns?|internship|trainee|undergraduate|co op|coop|pasante|apprentice|working student|students?|werkstudent(?:in)?|praktikant(?:in)?|praktikum|auszubildende[rn]?|azubi|volonta?e?r(?:in)?|duale[rn]? student(?:in)?|stagiaire|stage|alternante?|alternance|apprentie?|becari[oa]|stagista|stagisti|tirocinante|tirocinio|apprendista|estagiari[oa]s?|estagio|menor aprendiz|en practicas|practicas|practicante|estudiante|aprendiz|summer (?:analyst|associate)|phd candidate|doctoral (?:student|candidate)|doktorand(?:in)?',
    ),
    level: 'intern',
  },

  // Senior individual contributors.
  {
    name: 'staff engineer/scientist/designer',
    pattern: new RegExp(` (staff)(?= (?:${STAFF_TECH}) )`, 'g'),
    level: 'senior',
    keepContext: true,
  },
  {
    name: 'senior, lead, principal, distinguished, expert, confirmé, leitend, level III/IV',
    pattern: words(
      'senior|sr|snr|[a-z]*meister(?:in)?|lead|principal|distinguished|expert|experte|expertin|experto|experta|confirme|confirmee|leitende[rn]?|iii|iv',
    ),
    level: 'senior',
  },
];

/** Titles that name no job at all: no seniority can be read from them. */
export const NO_JOB =
  /^ (?:n a|na|none|null|nil|unknown|not specified|not applicable|tbd|tba|tbc|unemployed|retired|self employed|freelance|freelancer|selbststandig|selbstandig|freiberufler(?:in)?|rentner(?:in)?|retraitee?|jubilad[oa]|autonom[oa]|independante?|between jobs|career break|sabbatical|(?:looking|seeking|open) (?:for|to) .*)? $/;
