import type { Department } from '@svc/core';

/**
 * One department rule: the function a title names. Rules run in table order over the normalised
 * title (`normalise.ts`) and the first that matches answers, so the more specific functions come
 * first: "Sales Engineer" is sales, "Product Marketing Manager" marketing, "Finance Director"
 * finance, "Vertriebsleiterin" sales. General management (CEO, Geschäftsführer) answers only when
 * no function word did ("Managing Director, Investment Banking" is finance). A title naming no
 * function ("Manager", "Owner", "Senior Associate") matches nothing: its department is null.
 */
export interface DepartmentRule {
  readonly department: Department;
  readonly pattern: RegExp;
}

/** Whole words (the normalised title is padded with one space each side). */
const words = (alternatives: string): RegExp => new RegExp(` (?:${alternatives})(?= )`);
/** Anywhere in a word: the second part of a German compound ("personalleiter", "teamleiterin"). */
const parts = (alternatives: string): RegExp => new RegExp(`(?:${alternatives})`);

export const DEPARTMENT_RULES: readonly DepartmentRule[] = [
  // Functions whose words are also read by broader ones below, first.
  {
    department: 'engineering',
    pattern: words(
      'information and communications? technology|information and communications?|ict|tic|tecnologias? de la informacion y (?:la )?comunicacion|tecnologie dell informazione e della comunicazione|technologies de l information et des communications|tecnologias? da informacao e (?:da )?comunicacao',
    ),
  },
  {
    department: 'marketing',
    pattern: words(
      'product marketing|marketing|mktg|brand|branding|advertising|public relations|pr|communications?|content|seo|sem|social media|growth|cmo|relations publiques|publicite|publicidad|publicidade|pubblicita|comunicacion|comunicacao|comunicazione|relazioni pubbliche|relacoes publicas|werbung',
    ),
  },
  {
    department: 'marketing',
    pattern: parts('marketing|(?<!tele)kommunikation|werbe|pressesprecher'),
  },
  {
    department: 'sales',
    pattern: words(
      'sales|salesperson|salespeople|account (?:executive|director|representative)|key account|business development|bdr|sdr|cro|inside sales|pre sales|presales|retail|store|shop|boutique|supermarket|import|export|merchandis\\w*|category manager|customer relationship manager|vente|ventes|vendeur|vendeuse|commercial(?= (?:director|directeur|directrice))|venta|ventas|vendedor|vendedora|comercial|comerciales|comerciante|tienda|vendas|loja|lojas|vendite|vendita|venditori|venditore|commerciale|commercializzazione|commercio|negozio',
    ),
  },
  {
    department: 'sales',
    pattern: parts(
      'vertrieb|verkauf|einzelhandel|gro(?:ss)?handel|(?:^| )leiter(?:in)? (?:eines|einer) [a-z ]*(?:geschaft|geschaeft|laden|kiosk)',
    ),
  },
  {
    department: 'legal',
    pattern: words(
      'legal|lawyer|attorney|counsel|paralegal|solicitor|barrister|notary|judge|compliance|juriste|avocat|avocate|notaire|abogado|abogada|juridico|juridica|advogado|advogada|juiz|avvocato|giurista|notaio|legale|jurist|juristin|justiziar|justiziarin|richter|richterin',
    ),
  },
  { department: 'legal', pattern: parts('rechtsanwalt|anwalt|anwaeltin|anwaltin|rechtsabteilung') },
  {
    department: 'support',
    pattern: words(
      'customer (?:service|support|success|experience)|client services|help ?desk|service desk|support (?:engineer|specialist|agent|representative|analyst)|technical support|call cent(?:er|re)|contact cent(?:er|re)|receptionists?|reception|service client|accueil|receptionnistes?|atencion al cliente|recepcionistas?|atendimento|servizio clienti|assistenza clienti',
    ),
  },
  {
    department: 'support',
    pattern: parts('kundenservice|kundendienst|kundenerfahrung|callcenter|call center agent'),
  },
  {
    department: 'hr',
    pattern: words(
      'hr|hrbp|human resources?|people(?: operations| ops| partner)?|talent|recruit\\w*|recruiting|recruiter|personnel|payroll|benefits|compensation|learning|training|diversity|chro|drh|rh|rrhh|ressources humaines|recursos humanos|risorse umane|personale|departamento pessoal|relacoes de trabalho',
    ),
  },
  {
    department: 'hr',
    pattern: parts('personal(?:leiter|abteilung|entwickl|wesen|chef|manag|sachbearb|berater)|recruit'),
  },
  {
    department: 'finance',
    pattern: words(
      'finance|financial|cfo|daf|accountant|accountants|accounting|bookkeep\\w*|controller|controlling|treasury|treasurer|tax|audit|auditor|auditors|actuary|actuarial|banking|bank|investment|investments|credit|risk|risks|insurance|fiscal|financ\\w*|contab\\w*|comptab\\w*|tesorer\\w*|tesouraria|credito|creditos|cambio|bancari\\w*|banca|seguros|riscos|rischi|leasing|mercado de capitais|receita|finanz\\w*|buchhalt\\w*|steuer\\w*|revisor\\w*|versicherung\\w*|wirtschaftsprufer\\w*|kredit\\w*|banque|assurances?|divisas',
    ),
  },
  { department: 'finance', pattern: parts('finanz|buchhalt|controlling|steuerberat') },
  {
    department: 'product',
    pattern: words(
      'product (?:manager|management|owner|director|lead|developer|development|head|officer)|products? manager|head of products?|chief product|vp product|cpo|product',
    ),
  },
  { department: 'product', pattern: parts('produktmanag|produktentwickl|produktowner') },
  {
    department: 'design',
    pattern: words(
      'design|designers|ux|ui|graphic|graphiste|illustrat\\w*|art director|creative|animation|animator|cgi|imagery artist|pattern grader|diseno|disenador|disenadora|disenadores|designer grafico|criacao|diretor de arte|diretor artistico|direttore artistico|directeur artistique|disegnatore|progettisti di prodotti|moda|fashion',
    ),
  },
  { department: 'design', pattern: parts('grafiker|mediengestalt|kommunikationsdesign|modedesign') },
  // Buying and supplier relations read before engineering ("ICT supplier relations" is purchasing).
  {
    department: 'operations',
    pattern: words(
      'procurement|purchasing|purchaser|buyer|buyers|sourcing|supplier|suppliers|proveedores|compras|comprador|compradora|acquisti|approvvigionamento|achats|acheteur|suprimentos',
    ),
  },
  { department: 'operations', pattern: parts('einkauf|beschaffung') },
  {
    department: 'engineering',
    pattern: words(
      'engineer|engineers|engineering|engr|developer|developers|software|devops|sre|cto|it|ict|tic|ti|data scientist|data engineer|machine learning|architect|cloud|database|databases|bases de datos|base de dados|web|network engineer|cybersecurity|information security|it security|security engineer|r and d|research and development|pesquisa e desenvolvimento|recherche developpement|investigacion y desarrollo|tecnologia da informacao|tecnologias da informacao|tecnologie dell informazione|technologies de l information|informatique|informatica|informatico|ingenieur|ingenieure|ingenieurin|ingeniero|ingeniera|ingenieria|ingenieros|engenheiro|engenheira|engenharia|ingegnere|ingegneri|ingegneria|desarrollador|desarrolladora|desarrolladores|desenvolvedor|sviluppatori|sviluppatore|programador|seguranca da informacao|analisti di sistema|analista de sistemas|systems analyst|telecomunicacoes|telecomunicaciones',
    ),
  },
  {
    department: 'engineering',
    pattern: parts(
      'ingenieur|informatiker|entwickler|softwar|edv |edv$|technische leit|systemintegr|netzwerk|architekt|modellierung von bauinformationen',
    ),
  },
  {
    department: 'education',
    pattern: words(
      'teacher|teachers|teaching|lecturer|professor|tutor|instructor|school|schools|education|educational|academic|dean|faculty|preschool|kindergarten|childcare|child care|e ?learning|enseignant|enseignants|enseignement|professeur|professeurs|instituteur|formateur|gardes d enfants|profesor|profesora|maestro|maestra|docente|docenti|insegnante|insegnanti|formatori|formatore|educacao|educacional|educacionais|ensino|educacion|educativo|educazione|educatore|pedagog\\w*|decano|decana|rector|rectora|reitor|reitora|rettore|infantil|aprendizaje electronico|professora|professores',
    ),
  },
  {
    department: 'education',
    pattern: parts(
      'department chair|chair of the department|chair of department|lehrer|lehrkraft|dozent|padagog|paedagog|schul|erzieh|kinderbetreu|ausbilder|dekan|instruktor|fahrlehr|hochschul|universitat|professor',
    ),
  },
  {
    department: 'health',
    pattern: words(
      'nurse|nurses|nursing|physicians|surgeon|doctor|dentist|dental|pharmacist|pharmacy|therapist|therapy|physiotherap\\w*|medical|medicine|clinical|clinic|health|healthcare|hospital|care home|respiratory care|radiograph\\w*|radiolog\\w*|midwife|paramedic|veterinar\\w*|caregiver|physician s assistant|optometr\\w*|oftalm\\w*|medic\\w*|enferm\\w*|infermier\\w*|sanitari\\w*|salud|sante|cirurgiao|odontolog\\w*|farmaceut\\w*|fisioterap\\w*|anestesiolog\\w*|neurofisiolog\\w*|cardiologia|nutricionista|dietist\\w*|dieteticiens|cuidador de idosos|anatomia patologica|instrumental quirurgico|saude bucal',
    ),
  },
  {
    department: 'health',
    pattern: parts(
      'arzt|aerzt|arztin|krankenpfleg|pflegefach|altenpfleg|gesundheit|heilprakt|medizin|klinik|therapeut|apothek|public health',
    ),
  },
  // Farming, fishing, forestry and mining are their own function, before production words.
  {
    department: 'other',
    pattern: words(
      'agricultur\\w*|agricol\\w*|agriculteurs?|agropecuari\\w*|farm|farms|farming|farmer|farmers|forestry|forestal|forestale|florestal\\w*|forestiers?|fishing|fisheries|fishery|pesca|pesqueir\\w*|pesquer\\w*|aquaculture|acuicultura|acuicola|aquicola|aquicolas|acquacoltura|mining|mines|mineria|mineracao|minerario|mineraria|miniere|estrazione|estrattiv\\w*|extraction miniere',
    ),
  },
  { department: 'other', pattern: parts('landwirt|forstwirt|fischerei|aquakultur|bergbau|bergwerk') },
  {
    department: 'operations',
    pattern: words(
      'operations|ops|operational|operating|usinagem|machining|amministrativ\\w*|administrativ\\w*|administratif|administrative|manifattur\\w*|kraftwerk\\w*|coo|logistics|logistic|supply chain|warehouse|inventory|distribution|production|manufacturing|manufacture|assembly|assembler|quality|qa|qs|maintenance|facility|facilities|fleet|plant|factory|operator|operators|operative|operatives|process worker|shipping|dispatcher|administrative|administration|office|secretary|secretaries|typist|typists|data entry|clerk|clerks|inspector|cnc|supply|operaciones|operacion|operacional|operacoes|operazioni|logistica|logistico|logistique|almacen|almoxarifado|magazzino|produccion|producao|produzione|production|fabricacion|fabricacao|fabbricazione|fabrica|calidad|qualidade|qualita|qualite|manutencao|mantenimiento|manutenzione|embalagem|etiquetagem|operador|operadora|operario|operaria|conduttori|montador|montadora|montaje|montagem|inspectora|secretariado|ufficio|inserimento dati|controlador de entrada|estampacion|tecnico de metrologia|compositeurs et preparateurs|mail and packaging|maquina|maquinas|machine|machines|tintes textiles',
    ),
  },
  {
    department: 'operations',
    pattern: parts(
      'betriebsleit|logistik|lager|produktion|fertig|montage|monteur|montier|qualitat|qualitaet|instandhalt|wartung|bediener|maschinen|prufung|pruefung|prueftechn|pruftechn|techniker textil|supply chain|verwaltung|buro|buero|sekretar|operativ',
    ),
  },
  {
    department: 'other',
    pattern: words(
      'hotel|hotels|hospitality|alberghier\\w*|hotelaria|hoteleria|anziani|restaurant|restaurants|table service|catering|cook|cooks|chef|kitchen|bar|tourism|tourist|travel|viajes|turismo|ristorazione|fast food|cocina|cozinha|driver|drivers|chauffeur|conducentes?|motorista|farm|farmer|farming|agricultural|agriculture|agricoli|agricola|agricoltura|agriculteurs|agropecuaria|agropecuarias|horticulture|gardener|forestry|forest|fishing|fisheries|aquaculture|acuicultura|acuicola|acquacoltura|pesca|pescador|construction|construccion|obras|obra|building|batiment|costruzione|plumber|plumbing|electrician|elettricisti|carpenter|charpentiers|menuisiers|mechanic|mechanics|mecanico|meccanici|mecaniciens|weaver|roofer|mason|muratori|welder|welding|police|policia|military|armed forces|militar|journalist|journalists|journalistes|giornalisti|periodista|jornalista|actor|actress|actors|musician|musicians|musicisti|singer|museum|museo|museums|gallery|curator|curatori|archivists|archivisti|library|librarian|biblioteche|bibliotecario|libreria|librera|cleaner|cleaning|limpieza|limpeza|pulitori|balayeurs|security|guard|sport|sports|sportive|kickboxing|coach|religious|policy|politica|politicas|public administration|pubblica amministrazione|servico publico|government|mayor|prefeito|legislativi|legislators?|esecutivo|poder executivo|scientist|geologist|biologist|biologo|biologi|physicist|chemist|archaeologist|arqueologo|historian|filosofi|storici|translator|traduttori|interpreter|mining|stage|theatre|theater|teatro|film|radio|television|event|events|eventi|conferences?|funeral|beauty|esthetic\\w*|hairdresser|zoo|animal|animals|pets?|dog|porter|portier|portieri|portaria|intelligence|cultural|culture|social|defence|defense|aviation|aviacao|airline|railway|trains|vias|marine|maritime|ship|demolition|demolicion|vendeurs ambulants|drill\\w*|mines|metallurg\\w*|garderob\\w*',
    ),
  },
  {
    department: 'other',
    pattern: parts(
      'bauarbeit|brueckenbau|bruckenbau|hochbau|tiefbau|dachdeck|maurer|klempner|elektriker|tischler|zimmerer|mechaniker|schweiss|polizei|soldat|offizier|journalist|schauspiel|musik|museum|kurator|bibliothek|reinig|gaerten|garten|landwirt|forst|fisch|aquakultur|hotel|restaurant|pension|gastronom|koch|kuech|kuch|touris|fahrer|pilot|flugleit|flughafen|regierung|burgermeist|buergermeist|politik|referent fur|agrar|physiker|chemiker|biolog|geolog|veranstaltung|event|kultur|sport|bergbau|zahntechniker fur pferde|waldwirtschaft|tierarzt',
    ),
  },
  // General management: only when no function was named.
  {
    department: 'executive',
    pattern: words(
      'ceo|chief executive|amministratore delegato|consigliere delegato|consejero delegado|diretor presidente|managing director|managing partner|general manager|executive director|president|presidente|presidenta|founder|co ?founder|cofounder|owner|co ?owner|proprietor|chairman|chairwoman|chairperson|chair|board|board member|strategy|strategic|strategie|strategia|estrategia|estrategico|directeur general|directrice generale|directeurs generaux|director general|directora general|diretor geral|direttore generale|gerente general|pdg|dg|vorstand|geschaftsleitung|geschaeftsleitung|fondateur|fondatrice|fundador|fundadora|inhaber|inhaberin|gesellschafter|gesellschafterin',
    ),
  },
  { department: 'executive', pattern: parts('geschaftsfuhr|geschaeftsfuehr|geschaftsleitung') },
];

/**
 * The department a (normalised) title names, or null when it names none. "Vice President" is not
 * a president, and a president of a function ("President, Sales") is that function.
 */
export function departmentOf(normalisedTitle: string): Department | null {
  const text = normalisedTitle.replace(/ vice presiden(?:t|te|ta) /g, ' vp ');
  for (const rule of DEPARTMENT_RULES) {
    if (rule.pattern.test(text)) return rule.department;
  }
  return null;
}
