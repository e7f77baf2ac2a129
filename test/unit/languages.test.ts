import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzerFor } from '../../src/search/analyzer.js';
import { normalizeLanguage, perLanguage, readingOrder, SUPPORTED_LANGUAGES } from '../../src/languages/languages.js';
import { resolveCategoryLabel, conceptOfTitle } from '../../src/catalog/vocabulary/categories.js';
import { resolveAudience, audienceOfWord } from '../../src/catalog/vocabulary/audiences.js';
import { familyOfWord, resolveColour } from '../../src/catalog/vocabulary/colours.js';
import { planQuery } from '../../src/search/query-plan.js';
import { TypoIndex } from '../../src/search/typo-index.js';

const same = (language: string, a: string, b: string) => {
  const analyzer = analyzerFor(language);
  assert.deepEqual(analyzer.analyze(a), analyzer.analyze(b), `${language}: "${a}" and "${b}" analyse alike`);
};

describe('catalog languages: text analysis', () => {
  it('knows nine languages and reads a region tag as its language', () => {
    assert.deepEqual([...SUPPORTED_LANGUAGES], ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt', 'sv', 'da']);
    assert.equal(normalizeLanguage('fr-CA'), 'fr');
    assert.equal(normalizeLanguage('DE'), 'de');
    assert.equal(normalizeLanguage('pt_BR'), 'pt');
    assert.equal(normalizeLanguage('xx'), undefined);
    assert.equal(normalizeLanguage('français'), undefined);
    assert.deepEqual(readingOrder('fr').slice(0, 2), ['fr', 'en']);
  });

  it("builds a language's tables the first time that language is read, once, and none for English or unknown codes", () => {
    const built: string[] = [];
    const table = perLanguage((data) => {
      built.push(data.code);
      return { code: data.code };
    });
    assert.deepEqual(built, [], 'nothing is built before a language is asked for');
    assert.equal(table('en'), undefined);
    assert.equal(table('xx'), undefined);
    assert.deepEqual(table('fr'), { code: 'fr' });
    assert.equal(table('fr'), table('fr'));
    assert.deepEqual(built, ['fr']);
  });

  it('English keeps its light plural stemmer exactly', () => {
    assert.deepEqual(analyzerFor('en').analyze('Dresses Shoes Watches Accessories de la'), [
      'dress',
      'shoe',
      'watch',
      'accessory',
      'de',
      'la',
    ]);
  });

  it('stems plurals and feminines with each language’s Snowball stemmer and folds accents', () => {
    same('fr', 'chaussures', 'chaussure');
    same('fr', 'Écharpes', 'echarpe');
    same('de', 'Kleider', 'Kleid');
    same('es', 'vestidos', 'vestido');
    same('it', 'gonne', 'gonna');
    same('nl', 'jurken', 'jurk');
    same('pt', 'camisas', 'camisa');
    same('sv', 'klänningar', 'klänning');
    same('da', 'kjoler', 'kjole');
  });

  it('folds letters typed plainly: weiß/weiss, læder/laeder, brød/brod', () => {
    same('de', 'Weiß', 'weiss');
    same('da', 'læderjakke', 'laederjakke');
    same('da', 'brød', 'brod');
    same('fr', 'nœud', 'noeud');
  });

  it('carries the forms a stemmer misses: jerséis/jersey, BHs/BH, mujeres/mujer, blanches/blanc', () => {
    same('es', 'jerséis', 'jersey');
    same('de', 'BHs', 'BH');
    same('es', 'mujeres', 'mujer');
    same('fr', 'blanches', 'blanc');
    same('it', 'uomini', 'uomo');
  });

  it('drops elided articles and stop words', () => {
    assert.deepEqual(analyzerFor('fr').analyze("l'écharpe d'hiver"), analyzerFor('fr').analyze('echarpe hiver'));
    assert.deepEqual(analyzerFor('it').analyze("dell'abito"), analyzerFor('it').analyze('abito'));
    assert.deepEqual(analyzerFor('es').analyze('vestido de fiesta'), analyzerFor('es').analyze('vestido fiesta'));
    // A query of nothing but stop words still means something.
    assert.ok(analyzerFor('fr').analyze('de la').length > 0);
    // A stop word that is a catalog word here is kept ("or" is gold in French).
    assert.ok(analyzerFor('fr').analyze('bague or').includes(analyzerFor('fr').stem('or')));
  });

  it('splits compounds into their catalog words (German, Dutch, Swedish, Danish), not brand names', () => {
    const de = analyzerFor('de');
    assert.deepEqual(de.compoundParts('sommerkleid'), [de.stem('sommer'), de.stem('kleid')]);
    assert.deepEqual(de.compoundParts('lederjacke'), [de.stem('leder'), de.stem('jacke')]);
    assert.deepEqual(de.compoundParts('arbeitshose'), [de.stem('arbeit'), de.stem('hose')]);
    assert.ok(de.compoundTerms('Damenschuhe Leder').includes(de.stem('schuhe')));
    assert.deepEqual(de.compoundParts('adidas'), []);
    const nl = analyzerFor('nl');
    assert.ok(nl.compoundTerms('zomerjurk').includes(nl.stem('jurk')));
    assert.deepEqual(nl.compoundParts('adidas'), [], 'a three-letter head needs a long modifier');
    assert.ok(analyzerFor('sv').compoundTerms('sommarklänning').includes(analyzerFor('sv').stem('klänning')));
    assert.ok(analyzerFor('da').compoundTerms('læderjakke').includes(analyzerFor('da').stem('jakke')));
    assert.deepEqual(analyzerFor('fr').compoundParts('portefeuille'), [], 'French writes no compounds');
  });

  it('plans a compound query to match its words written apart, and never corrects a catalog word', () => {
    const de = analyzerFor('de');
    const plan = planQuery('Sommerkleid', new TypoIndex(), [], { analyzer: de, lastWordIsPrefix: false });
    assert.deepEqual(plan.clauses[0], [
      { kind: 'phrase', tokens: [de.stem('sommerkleid')] },
      { kind: 'phrase', tokens: [de.stem('sommer'), de.stem('kleid')] },
    ]);
    const fr = planQuery('robe de soirée', new TypoIndex(), [], {
      analyzer: analyzerFor('fr'),
      lastWordIsPrefix: false,
    });
    assert.equal(fr.clauses.length, 2, 'the stop word is no clause');
  });

  it('indexes mixed scripts, right-to-left text and emoji by their words in every language', () => {
    for (const language of SUPPORTED_LANGUAGES) {
      const analyzer = analyzerFor(language);
      const tokens = analyzer.rawTokens('Kimono 着物 فستان 🌈 ✨ Кимоно');
      assert.ok(tokens.includes('着物') && tokens.includes('فستان') && tokens.includes('кимоно'), language);
      assert.doesNotThrow(() => analyzer.analyze('x'.repeat(500)));
    }
  });
});

describe('catalog languages: the vocabulary', () => {
  it('reads garment labels in every language', () => {
    const dresses: Array<[string, string]> = [
      ['fr', 'Robes'],
      ['de', 'Kleider'],
      ['es', 'Vestidos'],
      ['it', 'Abiti'],
      ['nl', 'Jurken'],
      ['pt', 'Vestidos'],
      ['sv', 'Klänningar'],
      ['da', 'Kjoler'],
    ];
    for (const [language, label] of dresses)
      assert.equal(resolveCategoryLabel(label, readingOrder(language))?.concept, 'dress', `${language} ${label}`);
    assert.equal(resolveCategoryLabel('Chaussures', readingOrder('fr'))?.group, 'FOOTWEAR');
    assert.equal(resolveCategoryLabel('Sommerkleider', readingOrder('de'))?.concept, 'dress', 'a compound by its head');
    assert.equal(resolveCategoryLabel('Lederjacken', readingOrder('de'))?.concept, 'jacket');
    assert.equal(
      resolveCategoryLabel('Jupe en jean', readingOrder('fr'))?.concept,
      'skirt',
      'French names the product first',
    );
  });

  it('reads the store’s language first and other languages after: Robes are dresses in French, bathrobes in English', () => {
    assert.equal(resolveCategoryLabel('Robes', readingOrder('fr'))?.group, 'DRESSES');
    assert.equal(resolveCategoryLabel('Robes', readingOrder('en'))?.group, 'NIGHTWEAR');
    assert.equal(
      resolveCategoryLabel('Dresses', readingOrder('fr'))?.group,
      'DRESSES',
      'a French store understands English',
    );
    assert.equal(resolveCategoryLabel('Kleider', readingOrder('fr'))?.group, 'DRESSES', 'and German');
    assert.equal(conceptOfTitle('Robe longue fleurie en coton', readingOrder('fr'))?.concept, 'dress');
    assert.equal(conceptOfTitle('Damen Sommerkleid mit Blumen', readingOrder('de'))?.concept, 'dress');
  });

  it('reads audiences and colours in every language', () => {
    const women: Array<[string, string]> = [
      ['fr', 'Femme'],
      ['de', 'Damen'],
      ['es', 'Mujer'],
      ['it', 'Donna'],
      ['nl', 'Dames'],
      ['pt', 'Mulher'],
      ['sv', 'Dam'],
      ['da', 'Dame'],
    ];
    for (const [language, label] of women)
      assert.equal(resolveAudience(label, readingOrder(language)).audience, 'women', `${language} ${label}`);
    assert.equal(resolveAudience('Herren', readingOrder('de')).audience, 'men');
    assert.equal(resolveAudience('Niñas', readingOrder('es')).audience, 'girls');
    const reds: Array<[string, string]> = [
      ['fr', 'Rouge'],
      ['de', 'Rot'],
      ['es', 'Rojo'],
      ['it', 'Rosso'],
      ['nl', 'Rood'],
      ['pt', 'Vermelho'],
      ['sv', 'Röd'],
      ['da', 'Rød'],
    ];
    for (const [language, label] of reds)
      assert.equal(resolveColour(label, readingOrder(language)).family, 'red', `${language} ${label}`);
    assert.equal(resolveColour('Bleu marine', readingOrder('fr')).family, 'blue');
    assert.equal(resolveColour('Dunkelblau', readingOrder('de')).family, 'blue');
    assert.equal(resolveColour('Dunkelblau', readingOrder('de')).lightness, 'dark');
    assert.equal(familyOfWord('rouges', ['fr', 'en']), 'red');
    assert.equal(audienceOfWord('femmes', ['fr', 'en']), 'women');
    // A query is read in the store's language and English only: "kind" is no German child to an English store.
    assert.equal(audienceOfWord('kind', ['en']), undefined);
  });
});
