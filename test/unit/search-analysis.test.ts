import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, allowedEdits, foldText, stem } from '../../src/search/analyzer.js';
import { TypoIndex, editDistance } from '../../src/search/typo-index.js';
import {
  analyzeSynonyms,
  commonWordRelaxations,
  containsPhrase,
  planQuery,
  relaxations,
} from '../../src/search/query-plan.js';
import { matchExpression } from '../../src/search/sqlite-text-index.js';
import { tsQueryExpression } from '../../src/search/postgres-text-index.js';
import { shapeScore } from '../../src/modules/search/search.service.js';

describe('search analysis', () => {
  it('folds case and accents and stems plurals alike on both sides', () => {
    assert.equal(foldText('Écharpe ROSÉ'), 'echarpe rose');
    assert.deepEqual(['dresses', 'shoes', 'watches', 'accessories', 'jeans', 'dress', 'glass', 'status'].map(stem), [
      'dress',
      'shoe',
      'watch',
      'accessory',
      'jean',
      'dress',
      'glass',
      'status',
    ]);
    assert.deepEqual(analyze('T-Shirts, Red!'), ['t', 'shirt', 'red']);
    assert.deepEqual(analyze('😀 ✨'), []);
    assert.deepEqual(analyze('שמלה אדומה'), ['שמלה', 'אדומה']);
  });

  it('allows one edit from 5 letters, two from 9, none on numbers', () => {
    assert.equal(allowedEdits('shoe'), 0);
    assert.equal(allowedEdits('jeens'), 1);
    assert.equal(allowedEdits('sunglases'), 2);
    assert.equal(allowedEdits('15970'), 0);
    assert.equal(editDistance('jeen', 'jean', 1), 1);
    assert.equal(editDistance('abc', 'xyz', 1), 2);
  });

  it('finds typo candidates, preferring common words', () => {
    const vocab = new TypoIndex();
    vocab.add('jean', 600);
    vocab.add('deen', 1);
    vocab.add('sunglass', 100);
    assert.deepEqual(vocab.candidates('jeen', 1), ['jean']);
    assert.deepEqual(vocab.candidates('sunglase', 2), ['sunglass']);
    assert.deepEqual(vocab.candidates('jean', 1), [], 'a known word is not corrected');
  });

  it('builds its deletion neighbourhood with the first word that needs it, answering as one built ahead', () => {
    let built = 0;
    const vocab = new TypoIndex(() => built++);
    for (const [term, df] of [
      ['shirt', 900],
      ['shrt', 2],
      ['dress', 400],
      ['sunglass', 100],
    ] as const)
      vocab.add(term, df);
    // A known word more common than a fiftieth of the most common: no word can be meant instead.
    assert.deepEqual(vocab.candidates('dress', 1), []);
    assert.equal(vocab.hasNeighbourhood, false);
    assert.equal(built, 0);
    // A rare known word may be a typo of a far more common one: the neighbourhood is built for it.
    assert.deepEqual(vocab.candidates('shrt', 1), ['shirt']);
    assert.equal(vocab.hasNeighbourhood, true);
    // Terms added afterwards are filed in it; unknown words use it; it is built once.
    vocab.add('trouser', 300);
    assert.deepEqual(vocab.candidates('trousre', 1), ['trouser']);
    assert.deepEqual(vocab.candidates('sunglase', 2), ['sunglass']);
    assert.equal(built, 1);
    const ahead = new TypoIndex();
    for (const term of ['shirt', 'shrt', 'dress', 'sunglass', 'trouser']) ahead.add(term, vocab.frequency(term));
    ahead.candidates('zzzz', 1);
    for (const word of ['shrt', 'dres', 'trousre', 'sunglase', 'shirts', 'dress'])
      assert.deepEqual(vocab.candidates(word, 2), ahead.candidates(word, 2), word);
  });

  it('plans synonyms, typos and a prefix for the last word', () => {
    const vocab = new TypoIndex();
    for (const term of ['red', 'dress', 'sport', 'shoe', 'jean']) vocab.add(term, 10);
    const synonyms = analyzeSynonyms([
      ['sneakers', 'sports shoes'],
      ['tee', 't-shirt'],
    ]);
    const plan = planQuery('red sneakers', vocab, synonyms);
    assert.deepEqual(plan.clauses[1], [
      { kind: 'phrase', tokens: ['sneaker'] },
      { kind: 'phrase', tokens: ['sport', 'shoe'] },
    ]);
    const typed = planQuery('jeens sh', vocab, []);
    assert.deepEqual(typed.clauses[0], [
      { kind: 'phrase', tokens: ['jeen'] },
      { kind: 'phrase', tokens: ['jean'] },
    ]);
    assert.deepEqual(typed.clauses[1], [
      { kind: 'phrase', tokens: ['sh'] },
      { kind: 'prefix', token: 'sh' },
    ]);
    assert.equal(planQuery('red ', vocab, [], { lastWordIsPrefix: false }).clauses[0].length, 1);
    assert.ok(containsPhrase(['women', 'red', 'dress'], ['red', 'dress']));
    assert.ok(!containsPhrase(['red', 'women', 'dress'], ['red', 'dress']));
  });

  it('never corrects a word the catalog vocabulary knows into another word of the store', () => {
    // On a real 105k-article catalog "women underwear bottom" found men's boxers named "Woven".
    const vocab = new TypoIndex();
    for (const term of ['woven', 'underwear', 'bottom', 'short', 'shirt', 'greek']) vocab.add(term, 50);
    const plan = planQuery('women underwear bottom', vocab, [], { lastWordIsPrefix: false });
    assert.deepEqual(
      plan.clauses[0].filter((alt) => alt.kind === 'phrase'),
      [{ kind: 'phrase', tokens: ['women'] }],
      'an audience word is meant as written',
    );
    // A colour ("green", one edit from "greek") and a garment ("shirt", one edit from "short") are not
    // typos either; an unknown word still is corrected.
    assert.deepEqual(planQuery('green', vocab, [], { lastWordIsPrefix: false }).clauses[0], [
      { kind: 'phrase', tokens: ['green'] },
    ]);
    assert.deepEqual(planQuery('shirt', vocab, [], { lastWordIsPrefix: false }).clauses[0], [
      { kind: 'phrase', tokens: ['shirt'] },
    ]);
    assert.ok(
      planQuery('wovne', vocab, [], { lastWordIsPrefix: false }).clauses[0].some(
        (alt) => alt.kind === 'phrase' && alt.tokens[0] === 'woven',
      ),
    );
  });

  it('relaxes a query keeping its rare words first, then its common words', () => {
    const vocab = new TypoIndex();
    for (const [term, df] of [
      ['men', 900],
      ['mushroom', 2],
      ['brown', 50],
      ['casual', 300],
      ['shoe', 300],
    ] as const)
      vocab.add(term, df);
    const plan = planQuery('men mushroom brown casual shoes ', vocab, [], { lastWordIsPrefix: false });
    const words = (plans: (typeof plan)[]) =>
      plans.map((p) => p.clauses.map((alts) => alts[0].kind === 'phrase' && alts[0].tokens.join(' ')).join(' '));
    // Ties drop the earlier word both ways ("casual" before "shoe"): the noun tends to come last.
    assert.deepEqual(words(relaxations(plan, vocab)), [
      'mushroom brown casual shoe',
      'mushroom brown shoe',
      'mushroom brown',
      'mushroom',
    ]);
    assert.deepEqual(words(commonWordRelaxations(plan, vocab)), [
      'men brown casual shoe',
      'men casual shoe',
      'men shoe',
      'men',
    ]);
  });

  it('never lets operators reach the engines unquoted', () => {
    const plan = planQuery('NEAR OR "* - : AND', new TypoIndex(), []);
    assert.equal(matchExpression(plan, 'all'), '("near") AND ("or") AND ("and" OR "and"*)');
    assert.equal(tsQueryExpression(plan, 'any'), '(near) | (or) | (and | and:*)');
  });

  it('asks for the words the catalog vocabulary resolved only when told to', () => {
    const vocab = new TypoIndex();
    assert.deepEqual(planQuery('ladies tops', vocab, []).clauses[0], [{ kind: 'phrase', tokens: ['lady'] }]);
    assert.deepEqual(planQuery('ladies tops', vocab, [], { concepts: true }).clauses[0], [
      { kind: 'phrase', tokens: ['lady'] },
      { kind: 'concept', token: '0women' },
    ]);
  });

  it('shapes scores into (0, 1] with tiers ordered', () => {
    assert.ok(shapeScore(2, 0.1) > shapeScore(1, 1000));
    assert.ok(shapeScore(0, 0) > 0 && shapeScore(2, 1e9) <= 1);
  });
});
