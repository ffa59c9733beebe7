import { describe, expect, it } from 'vitest';
import { companyCandidate } from './company.js';
import { extractPage } from './extract.js';
import { socialProfile, socialProfiles } from './social.js';

describe('socialProfile: what a profile URL looks like on each network', () => {
  it.each([
    'https://twitter.com/login',
    'https://twitter.com/i/flow/signup',
    'https://x.com/search?q=acme',
    'https://twitter.com/hashtag/acme',
    'https://twitter.com/share?url=x',
    'https://twitter.com/intent/follow?screen_name=acme',
    'https://www.facebook.com/help',
    'https://www.facebook.com/login.php',
    'https://www.facebook.com/groups/123',
    'https://www.facebook.com/dialog/share',
    'https://github.com/join',
    'https://github.com/pricing',
    'https://github.com/topics/javascript',
    'https://github.com/login?return_to=x',
    'https://github.com/acme/widgets',
    'https://www.instagram.com/p/Cx1/',
    'https://www.instagram.com/explore/tags/acme/',
    'https://www.linkedin.com/shareArticle?mini=true',
    'https://www.linkedin.com/in/jane-roe',
    'https://www.youtube.com/watch?v=abc',
    'https://www.youtube.com/embed/abc',
    'https://www.pinterest.com/pin/123/',
    'https://example.com/acme',
    'https://blog.github.com/2018-10-26-github-and-microsoft/',
  ])('%s is not a company profile', (url) => {
    expect(socialProfile(url)).toBeNull();
  });

  it.each([
    ['https://twitter.com/#!/acme', 'x', 'https://x.com/acme'],
    ['http://www.twitter.com/#!/AcmeCorp/', 'x', 'https://x.com/AcmeCorp'],
    ['https://www.facebook.com/#!/acmewidgets', 'facebook', 'https://www.facebook.com/acmewidgets'],
    ['https://m.facebook.com/acme.widgets/', 'facebook', 'https://www.facebook.com/acme.widgets'],
    [
      'https://www.facebook.com/pages/Acme-Widgets/123456789',
      'facebook',
      'https://www.facebook.com/pages/Acme-Widgets/123456789',
    ],
    ['https://www.linkedin.com/company/acme/about/', 'linkedin', 'https://www.linkedin.com/company/acme'],
    ['https://github.com/orgs/acme', 'github', 'https://github.com/orgs/acme'],
    ['https://www.youtube.com/@acme', 'youtube', 'https://www.youtube.com/@acme'],
    ['https://youtube.com/channel/UC123/', 'youtube', 'https://www.youtube.com/channel/UC123'],
    ['https://instagram.com/acme.widgets', 'instagram', 'https://www.instagram.com/acme.widgets'],
    ['https://bsky.app/profile/acme.com', 'bluesky', 'https://bsky.app/profile/acme.com'],
  ])('%s is the %s profile %s', (raw, network, url) => {
    expect(socialProfile(raw)).toMatchObject({ network, url });
  });

  it('prefers, per network, the profile whose handle agrees with the company', () => {
    expect(
      socialProfiles(
        ['https://twitter.com/someoneelse', 'https://twitter.com/acmewidgets'],
        ['Acme Widgets'],
      ),
    ).toEqual({ x: 'https://x.com/acmewidgets' });
    expect(socialProfiles(['https://twitter.com/someoneelse'], ['Acme'])).toEqual({
      x: 'https://x.com/someoneelse',
    });
  });
});

describe('social profiles of a company page', () => {
  const candidateOf = (body: string) =>
    companyCandidate({
      domain: 'acme.test',
      pages: [
        extractPage(
          `<title>Acme</title><meta property="og:site_name" content="Acme">${body}`,
          'https://acme.test/',
        ),
      ],
      headers: {},
      cookies: [],
    });

  it('ignores profiles found only in third-party widgets, embedded posts, articles and author boxes', () => {
    const candidate = candidateOf(`
      <blockquote class="twitter-tweet"><p>Nice</p>&mdash; Jane (@jane) <a href="https://twitter.com/jane/status/1">May 1</a>
        <a href="https://twitter.com/jane">@jane</a></blockquote>
      <a class="twitter-timeline" href="https://twitter.com/partnerco">Tweets by partnerco</a>
      <blockquote class="instagram-media"><a href="https://www.instagram.com/someone/">someone</a></blockquote>
      <article><p>Read <a href="https://github.com/otherorg">otherorg</a>.</p></article>
      <div class="author-box"><a href="https://www.linkedin.com/company/authors-employer">Employer</a></div>
      <footer><a href="https://www.facebook.com/acme">Facebook</a></footer>`);
    expect(candidate?.fields.social).toEqual({ facebook: 'https://www.facebook.com/acme' });
  });

  it("takes links outside the site's frame only when their handle agrees with the company", () => {
    const candidate = candidateOf(`
      <div class="show-notes"><a href="https://twitter.com/guest">guest</a> <a href="https://github.com/acme">code</a></div>
      <div class="sidebarbox"><a href="https://twitter.com/acme">Follow us</a></div>`);
    expect(candidate?.fields.social).toEqual({ x: 'https://x.com/acme', github: 'https://github.com/acme' });
  });

  it("does not take a network's own pages for its profiles", () => {
    const candidate = companyCandidate({
      domain: 'xing.com',
      pages: [
        extractPage(
          `<title>XING</title><meta property="og:site_name" content="XING">
           <footer><a href="https://www.xing.com/pages/deutschebahn">Deutsche Bahn</a>
           <a href="https://twitter.com/xing_de">X</a></footer>`,
          'https://www.xing.com/',
        ),
      ],
      headers: {},
      cookies: [],
    });
    expect(candidate?.fields.social).toEqual({ x: 'https://x.com/xing_de' });
  });
});
