import { Skillwire } from 'skillwire';
const sw = new Skillwire({ sources: [{ list: () => [{ location: 'pdf/SKILL.md', text: '---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n' }], read: () => '---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n' }] });
console.log(sw.injectSync('@pdf fill this form').userMessage);
