import { describe, expect, it } from 'vitest';
import { MAILBOX_PHRASES, type MailboxPhrase, mailboxVerdictOf } from './mailbox-phrases.js';
import { replyTextForMatching } from './reply-text.js';

// Wordings per language and verdict. The ones marked (corpus) are real replies from the labelled
// corpus; the others are written from the providers' published wording of the same message.
const SAYS: Record<MailboxPhrase['language'], Partial<Record<MailboxPhrase['verdict'], string[]>>> = {
  en: {
    mailbox_not_found: [
      'The email account that you tried to reach does not exist.',
      '<a@b.example>: Recipient address rejected: User unknown in virtual mailbox table',
      'Recipient not found by SMTP address lookup',
      'sorry, no mailbox here by that name.',
    ],
    mailbox_disabled: [
      'The email account that you tried to reach is disabled.',
      'This account has been disabled or discontinued',
    ],
    mailbox_full: ['Quota exceeded (mailbox for user is full)', 'User has too many messages on the server.'],
  },
  es: {
    mailbox_not_found: ['El usuario no existe', 'Destinatario desconocido', 'no existe el buzón'],
    mailbox_disabled: ['La cuenta desactivada'],
    mailbox_full: ['El buzón está lleno', 'cuota excedida'],
  },
  pt: {
    // (corpus) iG's qmail.
    mailbox_not_found: ['Usuário Inválido ou Inexistente', 'Destinatário desconhecido', 'a conta não existe'],
    mailbox_disabled: ['Conta desativada'],
    mailbox_full: ['Caixa postal cheia', 'cota excedida'],
  },
  fr: {
    // (corpus) Orange and La Poste.
    mailbox_not_found: [
      'Adresse d au moins un destinataire invalide',
      'Utilisateur inconnu',
      "l'adresse n'existe pas",
    ],
    mailbox_disabled: ['Le compte est désactivé', 'Boite du destinataire archivee'],
    mailbox_full: ['La boîte aux lettres est pleine', 'quota dépassé'],
  },
  de: {
    mailbox_not_found: [
      'Benutzer unbekannt',
      'Empfänger existiert nicht',
      'Postfach nicht vorhanden',
      'unbekannter Empfänger',
    ],
    mailbox_disabled: ['Das Konto ist gesperrt'],
    // (corpus) web.de.
    mailbox_full: [
      'Benutzer hat zuviele Mails auf dem Server',
      'Postfach voll',
      'Speicherplatz überschritten',
    ],
  },
  it: {
    mailbox_not_found: ['Utente sconosciuto', 'destinatario inesistente', 'La casella non esiste'],
    mailbox_disabled: ['Casella disabilitata'],
    mailbox_full: ['Casella di posta piena', 'quota superata'],
  },
  pl: {
    // (corpus) Polish provider, with its English translation beside it.
    mailbox_not_found: ['Odbiorca <EMAIL_ADDRESS> nie istnieje'],
  },
  ru: {
    mailbox_not_found: ['Пользователь не найден', 'нет такого пользователя', 'Почтовый ящик не существует'],
    mailbox_disabled: ['Почтовый ящик заблокирован'],
    mailbox_full: ['Почтовый ящик переполнен', 'превышена квота'],
  },
  zh: {
    mailbox_not_found: ['该用户不存在', '收件人不存在', '邮箱不存在', '對方用戶不存在'],
    mailbox_disabled: ['帐号已被冻结'],
    mailbox_full: ['收件人邮箱已满', '收件人空间不足'],
  },
  ja: {
    mailbox_not_found: ['このアドレスは存在しません', 'ユーザは存在しません', '宛先不明'],
    mailbox_disabled: ['アカウントは停止されています'],
    mailbox_full: ['メールボックスがいっぱいです', '容量超過'],
  },
};

describe('MAILBOX_PHRASES', () => {
  it.each(Object.entries(SAYS))('reads the %s wordings of each verdict', (language, verdicts) => {
    for (const [verdict, texts] of Object.entries(verdicts)) {
      for (const text of texts ?? [])
        expect(mailboxVerdictOf(replyTextForMatching([text])), `${language}: ${text}`).toBe(verdict);
    }
  });

  it('has a wording per language the README names, for not found and full', () => {
    for (const language of ['en', 'es', 'pt', 'fr', 'de', 'it', 'ru', 'zh', 'ja'] as const) {
      for (const verdict of ['mailbox_not_found', 'mailbox_full'] as const) {
        expect(
          MAILBOX_PHRASES.some((phrase) => phrase.language === language && phrase.verdict === verdict),
          `${language} ${verdict}`,
        ).toBe(true);
      }
    }
  });

  it.each([
    // A domain, a sender or a message is not the mailbox.
    'neko.example.com does not exist',
    'Domain of sender address root@example.com does not exist',
    "You've reached your daily relay quota",
    'sending quota exceeded',
    'Message size exceeds fixed maximum message size',
    'invalid recipient address syntax',
    'STOREDRV.Submit; invalid recipient address',
    'Recipient address rejected: User a@example.com temporary locked. Please try again later!',
    'Mailbox unavailable or access denied',
    'Requested action not taken: mailbox unavailable',
    'Too much mail data recipient-mailbox-is-full@docomo.ne.jp',
  ])('says nothing certain about %j', (text) => {
    expect(mailboxVerdictOf(replyTextForMatching([text]))).toBeUndefined();
  });

  it('states nothing when two wordings disagree on deliverability, and disabled over not found', () => {
    expect(mailboxVerdictOf('Destinatario desconocido o mailbox lleno')).toBeUndefined();
    // Not found and disabled together: disabled, the more specific (Mail.ru's wording); both dead.
    expect(mailboxVerdictOf('Mailbox ( EMAIL_ADDRESS ) not found or inactivated')).toBe('mailbox_disabled');
    expect(
      mailboxVerdictOf('invalid mailbox. Local mailbox EMAIL_ADDRESS is unavailable: account is disabled'),
    ).toBe('mailbox_disabled');
  });
});
