import type { Department, Seniority } from '@svc/core';
import { departmentOf } from './department.js';
import { normaliseTitle } from './normalise.js';
import { type Level, NO_JOB, TITLE_RULES } from './rules.js';

/** What a title says about its holder. */
export interface SeniorityClassification {
  seniority: Seniority;
  /** The function the title names (`department.ts`), or null when it names none. */
  department: Department | null;
  /** Founder or co-founder of the organisation. */
  founder: boolean;
  /** Owner or co-owner (of a business, not of a product or process). */
  owner: boolean;
  /** Holds a governing board seat (board member, chair, non-executive director, Vorstand, ...). */
  board: boolean;
}

/** Management levels outrank everything a title also says ("Senior Vice President" is a VP). */
const MANAGEMENT_RANK: Partial<Record<Level, number>> = { executive: 4, vp: 3, director: 2, manager: 1 };

/**
 * Words that introduce whom a support role supports: "Executive Assistant to the CEO" is an
 * assistant, "Chief of Staff to the Founder" is not a founder. The clause after them is dropped.
 */
const SUPPORT_CLAUSE =
  / (assistant|assistante|assistent|assistentin|assistenz|asistente|secretary|secretaire|secretaria|sekretar|sekretarin|sekretaer|sekretaerin|advisor|adviser|berater|beraterin|conseiller|conseillere|asesor|asesora|aide|ea|pa|chief of staff|referent|referentin) (?:to|for|of|de|du|des|del|der|beim|bei|am|a|au|aupres) .*$/;

const PLACEHOLDER = ' | ';

/** A first word making the title a learner's post ("Trainee Import Manager"), read before the rules. */
const LEARNER_PREFIX = /^ (trainee|apprentice|graduate|junior|jr) /;

/**
 * Classifies a job title (English, German, French, Spanish, Portuguese or Italian) into a seniority
 * level, a department (the function it names) plus founder, owner and board flags, with the rule table in `rules.ts`. A missing or empty title, or one that
 * names no job ("Retired", "n/a"), is `unknown`; any other title without a level word is `entry`.
 */
export function classifySeniority(title: string | null | undefined): SeniorityClassification {
  const result: SeniorityClassification = {
    seniority: 'unknown',
    department: null,
    founder: false,
    owner: false,
    board: false,
  };
  if (title === null || title === undefined) return result;
  if (typeof title !== 'string') {
    throw new TypeError(`classifySeniority: title must be a string, null or undefined, got ${typeof title}`);
  }
  let text = normaliseTitle(title);
  if (!/\p{L}/u.test(text) || NO_JOB.test(text)) return result;
  text = text.replace(SUPPORT_CLAUSE, ' $1 ');
  result.department = departmentOf(text);

  const learnerText = text;
  let management = 0;
  let intern = false;
  let senior = false;
  for (const rule of TITLE_RULES) {
    let matched = false;
    // One pass per rule: the replacement both detects the rule and blanks what it explained.
    text = text.replace(rule.pattern, (match: string, word: string | undefined) => {
      matched = true;
      return rule.keepContext && word !== undefined ? match.replace(word, PLACEHOLDER) : PLACEHOLDER;
    });
    if (!matched) continue;
    if (rule.founder) result.founder = true;
    if (rule.owner) result.owner = true;
    if (rule.board) result.board = true;
    if (rule.level === 'intern') intern = true;
    else if (rule.level === 'senior') senior = true;
    else if (rule.level !== null) management = Math.max(management, MANAGEMENT_RANK[rule.level] ?? 0);
  }
  // "Trainee Import Manager", "Graduate Export Manager", "Junior Manager": a learner's post in a
  // management track is not a management post.
  const learner = LEARNER_PREFIX.exec(learnerText)?.[1];
  if (learner !== undefined && management <= 1) {
    management = 0;
    if (/^(?:trainee|apprentice)$/.test(learner)) intern = true;
    else senior = false;
  }
  result.seniority =
    management === 4
      ? 'executive'
      : management === 3
        ? 'vp'
        : management === 2
          ? 'director'
          : management === 1
            ? 'manager'
            : intern
              ? 'intern'
              : senior
                ? 'senior'
                : 'entry';
  return result;
}
