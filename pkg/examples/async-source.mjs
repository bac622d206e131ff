import { Skillwire } from 'skillwire';

// Skills fetched on demand (a browser would call fetch(); any Promise works).
const files = {
  'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n',
  'skills/xlsx/SKILL.md': '---\nname: xlsx\ndescription: Work with spreadsheets.\n---\nUse openpyxl.\n',
};
const source = {
  list: async () => Object.keys(files),
  read: async (location) => files[location],
};

const sw = await Skillwire.create({ sources: [source], budget: 4096 });
const turn = await sw.inject('fill in the pdf form, then @xlsx');
console.log(turn.decisions.map((d) => `${d.skill}: ${d.reason}`).join('\n'));
console.log(turn.userMessage);
sw.free();
